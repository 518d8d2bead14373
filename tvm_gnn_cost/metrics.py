"""Ranking metrics within tasks."""
from __future__ import annotations

import numpy as np


def pairwise_accuracy(scores: np.ndarray, truth: np.ndarray, groups: np.ndarray) -> float:
    """Fraction of same-task pairs with different ``truth`` that ``scores`` order the same way.

    Parameters
    ----------
    scores : np.ndarray
        Predicted scores, higher is better.
    truth : np.ndarray
        True quality, higher is better (for example throughput, or minus the cost).
    groups : np.ndarray
        Task of each program; only pairs within a task count.

    Returns
    -------
    float
        In [0, 1]; NaN if there is no pair to compare. Ties in ``scores`` count half.
    """
    scores, truth, groups = np.asarray(scores, float), np.asarray(truth, float), np.asarray(groups)
    right = total = 0.0
    for g in np.unique(groups):
        m = groups == g
        s, t = scores[m], truth[m]
        ds = np.sign(s[:, None] - s[None, :])
        dt = np.sign(t[:, None] - t[None, :])
        pairs = dt > 0
        total += pairs.sum()
        right += (ds[pairs] > 0).sum() + 0.5 * (ds[pairs] == 0).sum()
    return right / total if total else float("nan")
