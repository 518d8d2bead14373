"""A pretrained GNN as a prior for the online one; knows nothing of TVM.

A model pretrained on other networks ranks a new task's programs well before
any of them is measured, but fine-tuning it on a few records erases what it
learned (``benchmarks/bench_finetune.py``), so a tuning job that only
fine-tunes it slowly stops learning its own tasks. The prior mode keeps both:
the pretrained model stays frozen, an online GNN learns the job from scratch,
and on each task their log-scores are mixed, the prior's weight falling as the
task's own measurements come in::

    w_prior = prior_records / (prior_records + own_records)
    score = prior ** w_prior * online ** (1 - w_prior)

Scores are compared only within a task (Ansor's search ranks one task's
candidates at a time), so the weight may differ from task to task.
"""
from __future__ import annotations

import numpy as np

#: Default ``prior_records``: the prior and the online GNN weigh the same once a task has 32
#: valid records of its own (after two or three search rounds). Chosen on the validation network
#: gpt-512 against 128 (``benchmarks/results/default-model.md``, "The prior's share").
PRIOR_RECORDS = 32.0


#: Programs in a task's first round for a model with a pretrained prior, which ranks a task's
#: first programs without records of its own (chosen on validation,
#: ``benchmarks/results/default-model.md``).
PRIOR_FIRST_ROUND = 8


def first_round_size(with_prior: bool, measures_per_round: int) -> int:
    """Programs in each task's first round: at most :data:`PRIOR_FIRST_ROUND` for a model with
    a pretrained prior; a full round otherwise, as ``TaskScheduler`` does (the warm-up of
    stock ``XGBModel`` is one full round of every task)."""
    return min(PRIOR_FIRST_ROUND, measures_per_round) if with_prior else measures_per_round


def prior_weight(own_records: int, prior_records: float) -> float:
    """Weight of the prior's log-score on a task with ``own_records`` valid measurements.

    1 before the task's first measurement, 1/2 at ``prior_records`` of them, towards 0
    after; ``prior_records=0`` leaves the prior out once the task has a record.
    """
    if own_records < 0 or prior_records < 0:
        raise ValueError("own_records and prior_records must be >= 0")
    if own_records == 0:
        return 1.0
    return float(prior_records) / (prior_records + own_records)


def blend_scores(prior: np.ndarray, online: np.ndarray, w_prior: float) -> np.ndarray:
    """Weighted geometric mean of two positive score arrays.

    ``-inf`` (a program that cannot be read) in either stays ``-inf``; a weight of 1 or
    0 returns the prior's or the online scores unchanged.
    """
    prior = np.asarray(prior, dtype=np.float64)
    online = np.asarray(online, dtype=np.float64)
    if prior.shape != online.shape:
        raise ValueError(f"score arrays differ in shape: {prior.shape} vs {online.shape}")
    if not 0.0 <= w_prior <= 1.0:
        raise ValueError(f"w_prior must be in [0, 1], got {w_prior}")
    if w_prior == 1.0:
        return prior.copy()
    if w_prior == 0.0:
        return online.copy()
    out = np.full(prior.shape, -np.inf)
    ok = np.isfinite(prior) & np.isfinite(online)
    tiny = np.finfo(np.float64).tiny  # softplus can round to 0: keep the log finite
    out[ok] = np.exp(w_prior * np.log(np.maximum(prior[ok], tiny))
                     + (1.0 - w_prior) * np.log(np.maximum(online[ok], tiny)))
    return out


__all__ = ["PRIOR_FIRST_ROUND", "PRIOR_RECORDS", "blend_scores", "first_round_size", "prior_weight"]
