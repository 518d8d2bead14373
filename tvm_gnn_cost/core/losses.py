"""Training losses over a batch of programs from one or more tasks.

All take raw scores ``r`` (B,), labels ``y`` (B,) and task ids ``group`` (B,);
ranking terms only compare programs of the same task. The labels are normalized
throughput in [0, 1] (0 for failed programs, :func:`.labels.normalized_throughput`)
except for the losses in :data:`LOG_THROUGHPUT_LOSSES`, whose labels are
``ln(1 ms / cost)`` (``-inf`` for failed programs, :func:`.labels.log_throughput`):
a target that does not move as a task's best program improves, and that compares
programs across tasks, so a task whose every measured program is slow is seen
as slow rather than as "the best there is".
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

#: Losses that train the raw score towards log throughput rather than normalized throughput.
LOG_THROUGHPUT_LOSSES = ("pairwise+logmse",)


def uses_log_throughput(loss: str) -> bool:
    """True if ``loss`` takes :func:`.labels.log_throughput` labels (and scores are ``exp``)."""
    return loss in LOG_THROUGHPUT_LOSSES


def score_from_raw(r: torch.Tensor, log_throughput: bool = False) -> torch.Tensor:
    """Positive, monotone score the search sees: ``softplus(r)``, trained towards normalized
    throughput by the MSE term; or, for log-throughput losses, ``exp(r)``, predicted
    throughput in 1/ms (clamped against overflow)."""
    if log_throughput:
        return torch.exp(r.clamp(-60.0, 60.0))
    return F.softplus(r)


def _pairs(y: torch.Tensor, group: torch.Tensor):
    same = group[:, None] == group[None, :]
    better = y[:, None] > y[None, :]  # i faster than j
    return same & better


def pairwise_loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """RankNet: logistic loss on every ordered same-task pair."""
    mask = _pairs(y, group)
    if not mask.any():
        return r.sum() * 0.0
    diff = r[:, None] - r[None, :]
    return F.softplus(-diff[mask]).mean()


def weighted_pairwise_loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor,
                           full_ratio: float = 2.0) -> torch.Tensor:
    """RankNet with each pair weighted by how far apart its programs are: ``|ln(y_i / y_j)| /
    ln(full_ratio)``, at most 1 (a failed program, label 0, is far from everything). Programs
    less than ~1.3x apart are ordered by measurement noise as much as by their schedules
    (``benchmarks/remeasure.py``); pairs ``full_ratio`` or more apart count in full. Tried for
    pretraining and not adopted (``benchmarks/RESULTS.md``): the same held-out accuracy."""
    mask = _pairs(y, group)
    if not mask.any():
        return r.sum() * 0.0
    with torch.no_grad():
        ly = torch.log(y.clamp_min(1e-6))
        w = ((ly[:, None] - ly[None, :]).abs() / math.log(full_ratio)).clamp(max=1.0)[mask]
    diff = r[:, None] - r[None, :]
    return (w * F.softplus(-diff[mask])).sum() / w.sum().clamp_min(1e-9)


def lambdarank_loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """Pairwise logistic loss weighted by each pair's |delta NDCG| within its task.

    Positions come from the current scores among the batch's programs of
    the same task; gains are the labels.
    """
    mask = _pairs(y, group)
    if not mask.any():
        return r.sum() * 0.0
    with torch.no_grad():
        same = group[:, None] == group[None, :]
        # rank of i among its task's programs by current score (0 = best)
        rank = ((r[None, :] > r[:, None]) & same).sum(1).float()
        disc = 1.0 / torch.log2(rank + 2.0)
        ideal = ((y[None, :] > y[:, None]) & same).sum(1).float()
        idcg = torch.zeros_like(y).index_add_(0, group, y / torch.log2(ideal + 2.0))[group]
        gain = y / idcg.clamp_min(1e-9)
        delta = (gain[:, None] - gain[None, :]).abs() * (disc[:, None] - disc[None, :]).abs()
    diff = r[:, None] - r[None, :]
    w = delta[mask]
    return (w * F.softplus(-diff[mask])).sum() / w.sum().clamp_min(1e-9)


def listmle_loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """ListMLE: the negative log-likelihood of each task's measured order under a
    Plackett-Luce model of the scores, ``sum_i logsumexp(r_j : y_j <= y_i) - r_i`` over
    the batch's programs of the same task (a listwise loss: every program is compared
    with all those measured no faster, at once)."""
    same = group[:, None] == group[None, :]
    below = same & (y[None, :] <= y[:, None])  # j measured no faster than i
    multi = same.sum(1) > 1
    if not multi.any():
        return r.sum() * 0.0
    lse = torch.logsumexp(r[None, :].expand_as(below).masked_fill(~below, float("-inf")), 1)
    return (lse - r)[multi].mean()


def mse_loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """Squared error of the positive score against normalized throughput."""
    return F.mse_loss(score_from_raw(r), y)


def log_mse_loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """Squared error of the raw score against log throughput, over programs that ran."""
    ran = torch.isfinite(y)
    if not ran.any():
        return r.sum() * 0.0
    return F.mse_loss(r[ran], y[ran])


def make_loss(name: str):
    """The loss function for a ``TrainerConfig.loss`` name."""
    if name == "pairwise":
        return pairwise_loss
    if name == "lambdarank":
        return lambdarank_loss
    if name == "mse":
        return mse_loss
    if name == "pairwise+mse":
        return lambda r, y, g: pairwise_loss(r, y, g) + mse_loss(r, y, g)
    if name == "wpairwise+mse":
        return lambda r, y, g: weighted_pairwise_loss(r, y, g) + mse_loss(r, y, g)
    if name == "listmle+mse":
        return lambda r, y, g: listmle_loss(r, y, g) + mse_loss(r, y, g)
    if name == "pairwise+logmse":
        return lambda r, y, g: pairwise_loss(r, y, g) + log_mse_loss(r, y, g)
    raise ValueError(f"unknown loss {name!r}; use pairwise, lambdarank, mse, pairwise+mse, "
                     "wpairwise+mse, pairwise+logmse or listmle+mse")
