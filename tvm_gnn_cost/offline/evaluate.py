"""Accuracy of cost models on logs of measured programs: per task and overall.

For every model: pairwise ranking accuracy, TenSet's top-1 and top-5 scores,
recall@5, and RMSE / MAPE of the predicted normalized throughput (the seed
paper's prediction error).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from ..ansor.taskfile import log_tasks, register_logs
from ..ansor.featurizer import task_key
from ..ansor.logs import read_log
from ..ansor.records import TaskGroup, group_by_task
from ..core import labels
from ..core.metrics import (pairwise_accuracy, per_task_share, recall_at_k, throughput_errors,
                            topk_score)

logger = logging.getLogger("tvm_gnn_cost")

METRICS = ("pairwise", "top1", "top5", "recall@5", "rmse", "mape")


@dataclass
class Scored:
    """One model's scores of the programs of one task."""

    task: str
    scores: np.ndarray
    costs: np.ndarray
    weight: int = 1  # how often the task runs in its network (top-k scores weigh by it)


def load_groups(logs: Sequence[str], rebuilder=None,
                trust_pickle: bool = False) -> List[TaskGroup]:
    """Measured programs of ``logs`` by task (task files beside the logs are loaded first).

    A task keeps the name and weight its task file gives it (``vm_mod_fused_nn_conv2d_add``,
    run twice in its network, say) where the log alone has only the workload key.
    """
    known = {task_key(t): (t.desc, w) for t, w in zip(*log_tasks(logs, trust_pickle))}
    groups: Dict[str, TaskGroup] = {}
    for log in logs:
        inputs, results, _ = read_log(log)
        for g in group_by_task(inputs, results, rebuilder):
            key = task_key(g.task)
            g.name, g.weight = known.get(key, ("", 1))
            if key in groups:
                groups[key].states += g.states
                groups[key].costs += g.costs
            else:
                groups[key] = g
    return list(groups.values())


def read_logs(logs: Sequence[str], trust_pickle: bool = False) -> Tuple[list, list]:
    """Measure inputs and results of all ``logs``, their task files loaded first (training
    logs: what XGBoost is trained on, and whose tasks :func:`drop_seen` leaves out)."""
    register_logs(logs, trust_pickle)
    inputs: list = []
    results: list = []
    for log in logs:
        i, r, _ = read_log(log)
        inputs += i
        results += r
    return inputs, results


def drop_seen(groups: Sequence[TaskGroup], train_inputs: Sequence) -> List[TaskGroup]:
    """``groups`` without the tasks whose workload the training records ``train_inputs`` hold:
    a held-out network can share a task with the training networks (squeezenet's softmax with
    resnet's), and a task trained on is not held out. The workload decides, whatever the
    target: a dataset measured on two hosts holds one workload under two target strings."""
    seen = {i.task.workload_key for i in train_inputs}
    kept = [g for g in groups if g.task.workload_key not in seen]
    if len(kept) < len(groups):
        logger.warning("left out %d held-out task(s) that the training logs hold too: %s",
                       len(groups) - len(kept),
                       ", ".join(g.name or g.task.workload_key[:40]
                                 for g in groups if g.task.workload_key in seen))
    return kept


def gnn_scorer(model) -> Callable:
    """Scores of a ``GNNCostModel`` for the states of a task read from a log, as predicted
    normalized throughput: a model trained on log throughput predicts throughput itself, so
    its scores are divided by the task's highest (the order is the same)."""
    def scorer(task, states):
        scores = model.trainer.predict(model.featurize_measured(task, states))
        if model.trainer.log_throughput:
            return per_task_share(scores, np.zeros(len(scores)))
        return scores
    return scorer


def xgb_scorer(model) -> Callable:
    """Scores of Ansor's ``XGBModel`` (it replays the states itself)."""
    return lambda task, states: np.asarray(model.predict(task, states), dtype=float)


def score(groups: Sequence[TaskGroup], scorer: Callable) -> List[Scored]:
    return [Scored(g.name or g.task.workload_key[:40], np.asarray(scorer(g.task, g.states)),
                   np.asarray(g.costs, dtype=float), g.weight) for g in groups]


def stacked(scored: Sequence[Scored]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores, costs and task index (position in ``scored``) of every program, one array each,
    as the functions of :mod:`..core.metrics` take them."""
    scores = np.concatenate([s.scores for s in scored])
    costs = np.concatenate([s.costs for s in scored])
    tasks = np.concatenate([[i] * len(s.costs) for i, s in enumerate(scored)])
    return scores, costs, tasks


def metrics(scored: Sequence[Scored]) -> Dict[str, float]:
    """The metrics of :data:`METRICS` over all the tasks of ``scored``."""
    scores, costs, tasks = stacked(scored)
    weights = {i: s.weight for i, s in enumerate(scored)}
    scores = np.where(np.isfinite(scores), scores, -1e30)
    ran = labels.ran(costs)
    truth = labels.normalized_throughput(costs, tasks)
    rmse, mape = throughput_errors(np.clip(scores, -1e3, 1e3), costs, tasks)
    return {
        "pairwise": pairwise_accuracy(scores[ran], truth[ran], tasks[ran]),
        "top1": topk_score(scores, costs, tasks, 1, weights),
        "top5": topk_score(scores, costs, tasks, 5, weights),
        "recall@5": recall_at_k(scores[ran], costs[ran], tasks[ran], 5),
        "rmse": rmse,
        "mape": mape,
    }


def as_json(results: Dict[str, List[Scored]]) -> Dict[str, dict]:
    """Per model: the metrics over all tasks, and per task (NaN as None), for scripts."""
    def clean(m):
        return {k: (None if v != v else float(v)) for k, v in m.items()}
    return {name: {"all": {**clean(metrics(scored)), "tasks": len(scored),
                           "programs": sum(len(s.costs) for s in scored)},
                   "tasks": [{"task": s.task, "programs": len(s.costs), **clean(metrics([s]))}
                             for s in scored]}
            for name, scored in results.items()}


def table(results: Dict[str, List[Scored]]) -> str:
    """Markdown: one row per model overall, then one per model and task."""
    head = "| model | task | programs | " + " | ".join(METRICS) + " |\n"
    head += "|---|---|---:|" + "---:|" * len(METRICS) + "\n"
    rows = []
    for name, scored in results.items():
        m = metrics(scored)
        n = sum(len(s.costs) for s in scored)
        rows.append(f"| **{name}** | all {len(scored)} | {n} | "
                    + " | ".join(f"{m[k]:.3f}" for k in METRICS) + " |")
    for name, scored in results.items():
        for s in scored:
            m = metrics([s])
            rows.append(f"| {name} | {s.task} | {len(s.costs)} | "
                        + " | ".join(f"{m[k]:.3f}" for k in METRICS) + " |")
    return head + "\n".join(rows) + "\n"


__all__ = ["METRICS", "Scored", "as_json", "drop_seen", "gnn_scorer", "load_groups", "read_logs", "metrics", "score", "stacked", "table",
           "xgb_scorer"]
