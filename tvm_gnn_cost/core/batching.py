"""Training batches that keep programs of one task together.

Ranking losses compare programs of the same task only. A batch of 256 records drawn at random
from a corpus of 130 tasks holds about two programs a task, so about one same-task pair each:
nearly all of the batch feeds the regression term alone. Batches packed from runs of
``per_task`` programs of one task hold ``per_task * (per_task - 1) / 2`` pairs per run instead,
as TenSet and TLP batch by task.
"""
from __future__ import annotations

from typing import List

import numpy as np
import torch


def task_batches(groups: np.ndarray, batch_size: int, per_task: int,
                 generator: torch.Generator) -> List[torch.Tensor]:
    """One epoch of batches: indices into ``groups``, each index once.

    Each task's records are shuffled and cut into runs of ``per_task`` (its last run
    shorter); the runs are shuffled and packed in order into batches of at most
    ``batch_size`` records (a run is never split, so a batch can be shorter).
    ``per_task <= 1`` gives plain random batches of ``batch_size``.

    Parameters
    ----------
    groups : np.ndarray
        Task id of each record.
    batch_size : int
        Records per batch, at most.
    per_task : int
        Records of one task kept together.
    generator : torch.Generator
        Source of randomness (the same generator gives the same batches).

    Examples
    --------
    >>> gen = torch.Generator().manual_seed(0)
    >>> batches = task_batches(np.array([0, 0, 0, 1, 1, 1]), 4, 3, gen)
    >>> [sorted(set(np.array([0, 0, 0, 1, 1, 1])[b.numpy()])) for b in batches]
    [[0], [1]]
    """
    groups = np.asarray(groups)
    n = len(groups)
    if n == 0:
        return []
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if per_task <= 1:
        perm = torch.randperm(n, generator=generator)
        return [perm[s:s + batch_size] for s in range(0, n, batch_size)]
    per_task = min(per_task, batch_size)
    # Shuffle all records, then stable-sort by task: each task's records in random order.
    perm = torch.randperm(n, generator=generator).numpy()
    perm = perm[np.argsort(groups[perm], kind="stable")]
    _, starts = np.unique(groups[perm], return_index=True)
    ends = np.append(starts[1:], n)
    runs = [perm[s:min(s + per_task, e)] for b, e in zip(starts, ends)
            for s in range(b, e, per_task)]
    order = torch.randperm(len(runs), generator=generator).tolist()
    batches: List[torch.Tensor] = []
    current: List[np.ndarray] = []
    size = 0
    for r in order:
        if size + len(runs[r]) > batch_size and current:
            batches.append(torch.from_numpy(np.concatenate(current)))
            current, size = [], 0
        current.append(runs[r])
        size += len(runs[r])
    if current:
        batches.append(torch.from_numpy(np.concatenate(current)))
    return batches


__all__ = ["task_batches"]
