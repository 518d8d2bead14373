"""Parse the loop tree that Ansor prints for a ``State``.

``str(state)`` is one cheap C++ call that prints every non-inlined stage of a
bound-inferred state with its loop nest, annotations, extents, attach points
and ``auto_unroll`` pragmas. Reading it is about ten times faster than walking
``state.stages[i].iters`` through the FFI, and it is the only place where the
compute_at target is visible. This module knows nothing about TVM: it parses
text, so it can be tested on its own.

The printer (``PrintStage`` in ``src/auto_scheduler/loop_state.cc``) emits, for
each stage, its pragma lines, then one line per non-trivial loop, each one
indent deeper, printing the stages attached at a loop right below that loop,
and finally ``<name> = ...``. A stage's own statement therefore is the last
line under each of its own loops; loops that enclose the statement but end
with another stage's statement belong to the stage it is attached to.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List

#: Loop annotations as printed, mapped to TVM's ``IteratorAnnotation`` values.
ANNOTATIONS: Dict[str, int] = {
    "for": 0,
    "unroll": 1,
    "vectorize": 2,
    "parallel": 3,
    "vthread": 4,
    "blockIdx.x": 5,
    "threadIdx.x": 6,
    "blockIdx.y": 7,
    "threadIdx.y": 8,
    "blockIdx.z": 9,
    "threadIdx.z": 10,
    "tensorize": 11,
}

_LOOP_RE = re.compile(r"^(\S+) (\S+) \((.*)\)$")
_PRAGMA_RE = re.compile(r"^(\S+) (auto_unroll|storage_offset): (-?\d+)$")


class LoopTreeError(ValueError):
    """The text is not a bound-inferred Ansor state."""


@dataclass
class Loop:
    """One printed (non-trivial) loop."""

    name: str
    annotation: int
    extent: int
    owner: int = -1  # index of the statement whose stage owns this loop


@dataclass
class Statement:
    """One non-inlined compute stage: its name and the loops around it."""

    name: str
    loops: List[int]  # indices into LoopTree.loops, outermost first
    auto_unroll: int = 0


@dataclass
class LoopTree:
    """Loops and statements of one state, in print order."""

    placeholders: List[str] = field(default_factory=list)
    loops: List[Loop] = field(default_factory=list)
    statements: List[Statement] = field(default_factory=list)

    def own_loops(self, stmt: int) -> List[Loop]:
        """Loops that belong to statement ``stmt``'s own stage, outermost first."""
        return [self.loops[i] for i in self.statements[stmt].loops if self.loops[i].owner == stmt]

    def context_loops(self, stmt: int) -> List[Loop]:
        """Loops of the stages that ``stmt``'s stage is attached inside."""
        return [self.loops[i] for i in self.statements[stmt].loops if self.loops[i].owner != stmt]


def parse_loop_tree(text: str) -> LoopTree:
    """Parse ``str(state)`` into a :class:`LoopTree`.

    Parameters
    ----------
    text : str
        The printout of a bound-inferred ``auto_scheduler`` state.

    Returns
    -------
    LoopTree
        Its loops (with owners resolved) and statements.

    Raises
    ------
    LoopTreeError
        If a line cannot be read or a loop has no constant extent (the state
        was not bound-inferred).
    """
    tree = LoopTree()
    stack: List[tuple] = []  # (indent, loop index)
    pragmas: Dict[str, int] = {}

    def close_to(indent: int) -> None:
        last = len(tree.statements) - 1
        while stack and stack[-1][0] >= indent:
            _, li = stack.pop()
            tree.loops[li].owner = last

    for raw in text.splitlines():
        if not raw.strip():
            continue
        body = raw.lstrip(" ")
        indent = len(raw) - len(body)
        if body.startswith("Placeholder:"):
            names = body[len("Placeholder:"):].split(",")
            tree.placeholders = [n.strip() for n in names if n.strip()]
            continue
        close_to(indent)
        if body.endswith(" = ..."):
            name = body[: -len(" = ...")]
            loops = [li for _, li in stack]
            tree.statements.append(Statement(name, loops, pragmas.pop(name, 0)))
            continue
        m = _PRAGMA_RE.match(body)
        if m:
            if m.group(2) == "auto_unroll":
                pragmas[m.group(1)] = int(m.group(3))
            continue
        m = _LOOP_RE.match(body)
        if m is None or m.group(1) not in ANNOTATIONS:
            raise LoopTreeError(f"cannot read state line {raw!r}")
        try:
            extent = int(m.group(3).rsplit(",", 1)[-1])
        except ValueError:
            raise LoopTreeError(
                f"loop {m.group(2)!r} has no constant extent ({m.group(3)!r}); "
                "pass bound-inferred states (task.compute_dag.infer_bound_from_state)"
            ) from None
        tree.loops.append(Loop(m.group(2), ANNOTATIONS[m.group(1)], extent))
        stack.append((indent, len(tree.loops) - 1))
    close_to(0)
    return tree


def base_names(loop_name: str) -> List[str]:
    """Original axis names a printed loop came from.

    ``"nn.0@yy.0@"`` gives ``["nn", "yy"]``, ``"rc.1"`` gives ``["rc"]``, and
    ``"ax0@ax1@.0.1"`` gives ``["ax0", "ax1"]``.
    """
    out = []
    for part in loop_name.split("@"):
        head = part.split(".", 1)[0]
        if head:
            out.append(head)
    return out

