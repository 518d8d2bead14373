"""A program's transform steps as tokens in the nodes of their stages (TLP's insight, kept
inside the graph; an experiment of issue 21, ``FeaturizerConfig.step_tokens``).

Ansor records a schedule as the steps that built it (``["SP", stage, iter, extent, lengths,
inner_to_outer]``, ``["AN", stage, iter, annotation]``, ...: the ``"i"`` field of its logs).
Each step names the stage it applies to by its index at that moment; cache read, cache write
and rfactor insert stages and shift the indices after them. :func:`step_tokens` replays those
insertions to find each step's stage in the final program, then writes the first ``k`` steps of
every node's stage as tokens: a one-hot step kind and six numbers of its arguments. The GNN's
node encoder reads them beside the loop-tree features. Knows nothing of TVM: it works on the
steps as Ansor serializes them.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

#: Step kinds, as Ansor names them in its logs.
STEP_KINDS = ("SP", "FSP", "FFSP", "RE", "FU", "AN", "PR", "CA", "CI", "CR", "CHR", "CHW",
              "RF", "SA")
_KIND = {k: i for i, k in enumerate(STEP_KINDS)}
N_ARGS = 6
TOKEN_WIDTH = len(STEP_KINDS) + N_ARGS
# Annotation values (none, unroll, vectorize, parallel, vthread, block/thread axes) -> class.
_ANN_CLASS = [0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4]


def _log(x: float) -> float:
    return math.log2(1.0 + x) if x > 0 else 0.0


def step_token_names(k: int) -> List[str]:
    """Column names of ``k`` tokens per node."""
    per = [f"kind_{s}" for s in STEP_KINDS] + [f"arg{j}" for j in range(N_ARGS)]
    return [f"step{i}_{n}" for i in range(k) for n in per]


def _args(step: list) -> List[float]:
    """Up to six numbers that say what a step does (its kind is one-hot beside them)."""
    kind = step[0]
    if kind == "SP":  # stage, iter, extent, lengths, inner_to_outer
        lengths = [_log(x or 0) for x in step[4][:4]]
        return [_log(step[3] or 0)] + lengths + [0.0] * (4 - len(lengths)) + [float(step[5])]
    if kind == "FSP":  # stage, iter, src_step, n_split
        return [_log(step[2]), float(step[4])]
    if kind == "FFSP":  # stage, iter, src_steps, level, factor_or_nparts
        return [_log(step[2]), float(len(step[3])), float(step[4]), float(step[5])]
    if kind in ("RE", "FU"):  # stage, iters
        return [float(len(step[2]))]
    if kind == "AN":  # stage, iter, annotation
        onehot = [0.0] * 5
        onehot[_ANN_CLASS[step[3]] if 0 <= step[3] < len(_ANN_CLASS) else 0] = 1.0
        return [_log(step[2])] + onehot
    if kind == "PR":  # stage, iter, "auto_unroll_max_step$16"
        _, _, value = str(step[3]).partition("$")
        return [_log(float(value))] if value.isdigit() else []
    if kind == "CA":  # stage, target stage, target iter
        return [_log(step[3])]
    if kind == "CHR":  # stage, scope, reader stages
        return [float(len(step[3])), float("shared" in step[2]), float("local" in step[2])]
    if kind == "CHW":  # stage, scope
        return [float("shared" in step[2]), float("local" in step[2])]
    if kind == "RF":  # stage, iter, factor iter
        return [_log(step[2]), _log(step[3])]
    if kind == "SA":  # stage, iter, factor, offset
        return [_log(step[3]), _log(step[4])]
    return []  # CI, CR


def final_stages(steps: Sequence[list], n_initial: int) -> Optional[Tuple[List[int], int]]:
    """The final stage index each step applies to, and the number of stages at the end;
    None where a step names a stage that does not exist.

    ``n_initial`` is the number of operations of the task's compute DAG. Cache write and
    rfactor insert the new stage before their target, cache read after it (as Ansor's
    ``ApplyToState`` does).
    """
    stages = list(range(n_initial))  # identity of the stage at each index
    owner = []
    for step in steps:
        at = step[1]
        if not 0 <= at < len(stages):
            return None
        owner.append(stages[at])
        new = len(owner) + n_initial  # identities past the initial ones, never reused
        if step[0] in ("CHW", "RF"):
            stages.insert(at, new)
        elif step[0] == "CHR":
            stages.insert(at + 1, new)
    index = {ident: i for i, ident in enumerate(stages)}
    return [index[o] for o in owner], len(stages)


def step_tokens(steps: Sequence[list], n_initial: int, n_final: int,
                stage_of_node: Sequence[int], k: int) -> np.ndarray:
    """``(n_nodes, k * TOKEN_WIDTH)`` float32: the first ``k`` steps of each node's stage.

    Parameters
    ----------
    steps : sequence of list
        The state's transform steps as Ansor serializes them.
    n_initial : int
        Operations of the task's compute DAG (stages before any step).
    n_final : int
        Stages of the state; a replay that ends with another count (a step this replay does
        not model, such as a cache write of a multi-output operation) gives zero tokens.
    stage_of_node : sequence of int
        The final stage index of each graph node.
    k : int
        Steps kept per node.
    """
    out = np.zeros((len(stage_of_node), k * TOKEN_WIDTH), np.float32)
    replay = final_stages(steps, n_initial)
    if replay is None or replay[1] != n_final:
        return out
    node_of = {s: n for n, s in enumerate(stage_of_node)}
    filled = [0] * len(stage_of_node)
    for step, stage in zip(steps, replay[0]):
        node = node_of.get(stage)
        kind = _KIND.get(step[0])
        if node is None or kind is None or filled[node] >= k:
            continue
        base = filled[node] * TOKEN_WIDTH
        out[node, base + kind] = 1.0
        args = _args(step)[:N_ARGS]
        out[node, base + len(STEP_KINDS):base + len(STEP_KINDS) + len(args)] = args
        filled[node] += 1
    return out


__all__ = ["STEP_KINDS", "TOKEN_WIDTH", "final_stages", "step_token_names", "step_tokens"]
