"""Reading Ansor logs that may be damaged: truncated lines, garbage, other targets.

TVM's ``RecordReader`` stops with an error at the first line it cannot parse,
and a tuning job killed while writing leaves exactly such a line at the end of
its log. :func:`read_log` reads line by line, skips what it cannot use and says
how many lines and why; :func:`repair_log` moves unreadable lines aside so that
TVM's own readers (``TaskScheduler``, ``PreloadMeasuredStates``) can resume
from the log.
"""
from __future__ import annotations

import json
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Sequence, Set, Tuple

from tvm.auto_scheduler.measure_record import load_record_from_string

from ..core.files import replaced_whole

logger = logging.getLogger("tvm_gnn_cost")

UNREADABLE = "unreadable line (truncated or not a record)"
OTHER_TARGET = "record of another target"


@dataclass
class LogReport:
    """What reading a log found: records kept and lines skipped, by reason."""

    path: str
    used: int = 0
    skipped: Counter = field(default_factory=Counter)

    def describe(self) -> str:
        """One line for the user, e.g. ``120 records; skipped 2: 1 unreadable line ...``."""
        text = f"{self.path}: {self.used} records"
        if self.skipped:
            parts = ", ".join(f"{n} {why}" for why, n in self.skipped.most_common())
            text += f"; skipped {sum(self.skipped.values())} ({parts})"
        return text


def _open_text(path: str):
    """A log for reading; ``.gz`` logs (shipped datasets) are decompressed on the fly."""
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "r", encoding="utf-8", errors="replace")


def _lines(path: str) -> Iterator[str]:
    with _open_text(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line


def _parse(line: str):
    # TVM's parser accepts some truncated lines (returning a partial record), so the
    # line must first be whole JSON with both halves of a record.
    try:
        obj = json.loads(line)
        if not (isinstance(obj, dict) and "i" in obj and "r" in obj):
            return None
        return load_record_from_string(line)
    except Exception:  # noqa: BLE001 - json's ValueError; TVM's TVMError/InternalError
        return None


def iter_log(path: str, target: Optional[str] = None,
             report: Optional[LogReport] = None) -> Iterator[Tuple[object, object]]:
    """``(MeasureInput, MeasureResult)`` pairs of an Ansor log, one line at a time.

    Holds one record in memory, so logs larger than memory can be read. Lines
    that cannot be used are skipped and counted by reason in ``report``.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"no Ansor log at {path}")
    report = report if report is not None else LogReport(path)
    for line in _lines(path):
        record = _parse(line)
        if record is None:
            report.skipped[UNREADABLE] += 1
            continue
        if target is not None and str(record[0].task.target) != str(target):
            report.skipped[OTHER_TARGET] += 1
            continue
        report.used += 1
        yield record


def read_log(path: str, n_lines: Optional[int] = None,
             target: Optional[str] = None) -> Tuple[list, list, LogReport]:
    """Measure inputs and results of an Ansor log, skipping what cannot be used.

    Parameters
    ----------
    path : str
        An Ansor log (one JSON record per line), gzip-compressed if it ends in ``.gz``.
    n_lines : int, optional
        Read at most this many records.
    target : str, optional
        Keep only records of this target (compared as ``str(tvm.target.Target)``).

    Returns
    -------
    inputs, results : list
        ``MeasureInput`` and ``MeasureResult`` of the records kept.
    report : LogReport
        Counts of kept records and of skipped lines by reason; a warning is
        logged when anything was skipped.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"no Ansor log at {path}")
    inputs: List = []
    results: List = []
    report = LogReport(path)
    if n_lines is None or n_lines > 0:
        for inp, res in iter_log(path, target, report):
            inputs.append(inp)
            results.append(res)
            if n_lines is not None and len(inputs) >= n_lines:
                break
    if report.skipped:
        logger.warning("reading %s", report.describe())
    return inputs, results, report


def valid_workloads(logs: Sequence[str]) -> Set[str]:
    """Workload keys with at least one successful measurement in any of ``logs``."""
    keys: Set[str] = set()
    for log in logs:
        for inp, res in iter_log(log):
            if int(res.error_no) == 0:
                keys.add(inp.task.workload_key)
    return keys


def repair_log(path: str) -> int:
    """Move the lines of ``path`` that TVM cannot read to ``path + '.bad'``.

    Returns how many lines were moved (0 leaves the file untouched). The log is
    rewritten atomically, so a crash here loses nothing.
    """
    if not os.path.exists(path) or path.endswith(".gz"):
        return 0  # compressed logs are datasets, read but never appended to
    good, bad = [], []
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for line in f:
            text = line.strip()
            if not text or text.startswith("#") or _parse(text) is not None:
                good.append(text + "\n" if text else "")
            else:
                bad.append(line if line.endswith("\n") else line + "\n")
    if not bad:
        return 0
    with open(path + ".bad", "a", encoding="utf-8") as f:
        f.writelines(bad)
    with replaced_whole(path, "w") as f:
        f.writelines(good)
    logger.warning("%s: moved %d unreadable line(s) (a crash while writing?) to %s.bad",
                   path, len(bad), path)
    return len(bad)
