"""One line that says why TVM failed, for messages that end a command without a traceback."""
from __future__ import annotations

import re

# "TVMError: ...", "InternalError: Check failed: ...": the line that names the error, which TVM
# follows with details (LLVM's verifier output, the failing IR) that end in lines such as
# "ptr @__tvm_parallel_lambda".
_ERROR_LINE = re.compile(r"^\s*(\w*(Error|Exception)):\s*\S")


def error_summary(err: BaseException) -> str:
    """The line of ``err``'s message that names the error (the last such line, with the next
    one where it ends in a colon), else ``Type: last line``."""
    lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    named = [i for i, line in enumerate(lines) if _ERROR_LINE.match(line)]
    if not named:
        return f"{type(err).__name__}: {lines[-1]}" if lines else type(err).__name__
    i = named[-1]
    if lines[i].endswith(":") and i + 1 < len(lines):
        return f"{lines[i]} {lines[i + 1]}"
    return lines[i]


__all__ = ["error_summary"]
