"""Ranking and prediction metrics within tasks: pairwise accuracy, TenSet's top-k score
and recall@k, and the error of predicted normalized throughput."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .labels import clean_costs, normalized_throughput


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


def pairwise_by_ratio(scores: np.ndarray, costs: np.ndarray, groups: np.ndarray,
                      edges: Sequence[float] = (1.1, 1.3, 2.0)) -> List[Tuple[int, float]]:
    """Pairwise accuracy split by how far apart each pair's measured costs are.

    Parameters
    ----------
    scores : np.ndarray
        Predicted scores, higher is better.
    costs : np.ndarray
        Measured costs of programs that ran (all finite and positive).
    groups : np.ndarray
        Task of each program; only pairs within a task count.
    edges : sequence of float
        Bucket edges on ``slower cost / faster cost``: the buckets are ``[1, e0)``, ``[e0,
        e1)``, ..., ``[e_last, inf)``.

    Returns
    -------
    list of (int, float)
        Per bucket, the number of pairs and the fraction that ``scores`` order like the costs
        (NaN where a bucket is empty; ties in ``scores`` count half, pairs of equal cost are
        not counted).
    """
    scores, costs, groups = np.asarray(scores, float), np.asarray(costs, float), np.asarray(groups)
    if not np.isfinite(clean_costs(costs)).all():
        raise ValueError("pairwise_by_ratio takes the costs of programs that ran: drop failed "
                         "programs (cost >= 1e10 or inf) first")
    bounds = np.concatenate([[1.0], np.asarray(edges, float), [np.inf]])
    right, total = np.zeros(len(bounds) - 1), np.zeros(len(bounds) - 1)
    for _, idx in _tasks(groups):
        s, c = scores[idx], costs[idx]
        faster = c[:, None] < c[None, :]            # i faster than j
        ratio = (c[None, :] / c[:, None])[faster]
        ds = np.sign(s[:, None] - s[None, :])[faster]
        bucket = np.searchsorted(bounds, ratio, side="right") - 1
        np.add.at(total, bucket, 1)
        np.add.at(right, bucket, (ds > 0) + 0.5 * (ds == 0))
    return [(int(t), r / t if t else float("nan")) for t, r in zip(total, right)]


def _tasks(groups: np.ndarray):
    for g in np.unique(groups):
        yield g, np.flatnonzero(groups == g)


def topk_score(scores: np.ndarray, costs: np.ndarray, groups: np.ndarray, k: int,
               weights: Optional[Dict] = None) -> float:
    """TenSet's top-k score: how close the best of a model's k picks is to the best program.

    ``sum_t w_t * best_t / sum_t w_t * best_of_top_k_t``, ``best_t`` the lowest
    cost of task ``t`` and ``best_of_top_k_t`` the lowest cost among the ``k``
    programs of ``t`` with the highest scores. 1.0 means the model's top k always
    hold the best program.

    Parameters
    ----------
    scores : np.ndarray
        Predicted scores, higher is better.
    costs : np.ndarray
        Measured costs (seconds), lower is better; failed programs as ``inf``
        (or any cost >= 1e10).
    groups : np.ndarray
        Task of each program.
    k : int
        Programs picked per task.
    weights : dict, optional
        Weight of each task (default 1).
    """
    scores, costs, groups = np.asarray(scores, float), clean_costs(costs), np.asarray(groups)
    num = den = 0.0
    for g, idx in _tasks(groups):
        best = costs[idx].min()
        if not np.isfinite(best):
            continue  # no program of this task ran: nothing to pick
        top = idx[np.argsort(-scores[idx], kind="stable")[:k]]
        w = 1.0 if weights is None else float(weights[g])
        num += w * best
        den += w * costs[top].min()
    return num / den if den else float("nan")


def recall_at_k(scores: np.ndarray, costs: np.ndarray, groups: np.ndarray, k: int) -> float:
    """Mean over tasks of ``|top k by score & top k by cost| / k`` (TenSet's recall@k)."""
    scores, costs, groups = np.asarray(scores, float), clean_costs(costs), np.asarray(groups)
    out = []
    for _, idx in _tasks(groups):
        kk = min(k, len(idx))
        pred = set(idx[np.argsort(-scores[idx], kind="stable")[:kk]].tolist())
        true = set(idx[np.argsort(costs[idx], kind="stable")[:kk]].tolist())
        out.append(len(pred & true) / kk)
    return float(np.mean(out)) if out else float("nan")


def per_task_share(scores: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Positive scores divided by the highest score of their task: a predicted normalized
    throughput for models whose scores predict throughput itself (``exp`` of log throughput).
    Non-finite scores give 0."""
    scores = np.asarray(scores, float)
    out = np.zeros(len(scores))
    ok = np.isfinite(scores) & (scores > 0)
    if not ok.any():
        return out
    ids = np.unique(np.asarray(groups), return_inverse=True)[1].reshape(-1)
    best = np.zeros(ids.max() + 1)
    np.maximum.at(best, ids[ok], scores[ok])
    out[ok] = scores[ok] / best[ids[ok]]
    return out


def throughput_errors(predicted: np.ndarray, costs: np.ndarray,
                      groups: np.ndarray) -> Tuple[float, float]:
    """RMSE and MAPE of predicted normalized throughput, over programs that ran.

    The seed paper's "prediction error": both GNNCostModel and XGBModel predict
    ``best cost of the task / cost``.
    """
    y = normalized_throughput(costs, groups)
    p = np.asarray(predicted, float)
    ok = y > 0
    if not ok.any():
        return float("nan"), float("nan")
    err = p[ok] - y[ok]
    return float(np.sqrt(np.mean(err ** 2))), float(np.mean(np.abs(err) / y[ok]))
