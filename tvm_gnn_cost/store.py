"""Featurized measured programs on disk, in shards, so pretraining streams its data.

TenSet-sized corpora hold tens of millions of records: more graphs than fit in
memory. :func:`featurize_logs` reads Ansor logs one record at a time,
featurizes them in chunks (in worker processes if asked) and writes shards of
``shard_size`` records; :class:`RecordStore` keeps only per-task summaries in
memory (best cost, record count, feature sums) and yields shards a few at a
time, so memory is bounded by ``mix x shard_size`` records whatever the
corpus size.
"""
from __future__ import annotations

import glob
import logging
import os
import pickle
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np

from . import metrics
from .graph import ProgramGraph
from .trainer import FAILED_COST

logger = logging.getLogger("tvm_gnn_cost")

_CHUNK = 1024  # records read before featurizing them together


@dataclass
class Records:
    """Featurized measured programs: one graph, task key and cost (seconds) each."""

    graphs: List[ProgramGraph] = field(default_factory=list)
    tasks: List[str] = field(default_factory=list)
    costs: List[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.graphs)

    def subset(self, idx: Sequence[int]) -> "Records":
        return Records([self.graphs[i] for i in idx], [self.tasks[i] for i in idx],
                       [self.costs[i] for i in idx])

    def extend(self, other: "Records") -> None:
        self.graphs += other.graphs
        self.tasks += other.tasks
        self.costs += other.costs


@dataclass
class TaskSummary:
    """What the store remembers of one task: enough for labels and normalization."""

    records: int = 0
    best: float = float("inf")  # lowest cost among records that ran (seconds)
    nodes: int = 0
    feat_sum: Optional[np.ndarray] = None  # float64 sums over the task's nodes
    feat_sq: Optional[np.ndarray] = None

    def add(self, g: ProgramGraph, cost: float) -> None:
        self.records += 1
        if 0 < cost < FAILED_COST:
            self.best = min(self.best, cost)
        x = g.features.astype(np.float64)
        if self.feat_sum is None:
            self.feat_sum = np.zeros(x.shape[1])
            self.feat_sq = np.zeros(x.shape[1])
        self.nodes += x.shape[0]
        self.feat_sum += x.sum(0)
        self.feat_sq += (x * x).sum(0)

    def merge(self, other: "TaskSummary") -> None:
        self.records += other.records
        self.best = min(self.best, other.best)
        self.nodes += other.nodes
        if other.feat_sum is not None:
            if self.feat_sum is None:
                self.feat_sum, self.feat_sq = other.feat_sum.copy(), other.feat_sq.copy()
            else:
                self.feat_sum += other.feat_sum
                self.feat_sq += other.feat_sq


class RecordStore:
    """Shards of featurized records in ``root`` and a summary of every task.

    Parameters
    ----------
    root : str
        Folder of the shard files (``*.shard``).
    shards : list of str
        Shard paths, in the order written.
    summary : dict
        :class:`TaskSummary` by task key.
    """

    def __init__(self, root: str, shards: List[str], summary: Dict[str, TaskSummary]):
        self.root = root
        self.shards = shards
        self.summary = summary
        self.max_loaded = 0  # most records held at once by iter_parts, for tests and logs

    @property
    def tasks(self) -> List[str]:
        return sorted(self.summary)

    def __len__(self) -> int:
        return sum(s.records for s in self.summary.values())

    def labels(self, part: Records, log_throughput: bool = False) -> np.ndarray:
        """Normalized throughput ``best cost of the task / cost`` (0 if it failed), float32;
        with ``log_throughput``, :func:`.metrics.log_throughput` instead."""
        if log_throughput:
            return metrics.log_throughput(part.costs).astype(np.float32)
        best = np.array([self.summary[t].best for t in part.tasks])
        costs = np.asarray(part.costs, dtype=float)
        ok = (costs > 0) & (costs < FAILED_COST) & np.isfinite(best)
        y = np.zeros(len(costs), dtype=np.float32)
        y[ok] = best[ok] / costs[ok]
        return y

    def feature_stats(self, tasks: Sequence[str]):
        """Mean and standard deviation of node features over the nodes of ``tasks``."""
        parts = [self.summary[t] for t in tasks if self.summary[t].feat_sum is not None]
        n = sum(p.nodes for p in parts)
        if not n:
            raise ValueError("no node features to normalize with: no training record")
        mean = sum(p.feat_sum for p in parts) / n
        var = np.maximum(sum(p.feat_sq for p in parts) / n - mean * mean, 0.0)
        return mean.astype(np.float32), np.sqrt(var).astype(np.float32)

    def iter_parts(self, tasks: Optional[set] = None, order: Optional[Sequence[int]] = None,
                   mix: int = 1) -> Iterator[Records]:
        """Records of ``tasks`` (all if None), ``mix`` shards at a time, in shard ``order``."""
        order = list(range(len(self.shards))) if order is None else list(order)
        for s in range(0, len(order), max(1, mix)):
            part = Records()
            for i in order[s:s + max(1, mix)]:
                part.extend(_read_shard(self.shards[i]))
            if tasks is not None:
                part = part.subset([k for k, t in enumerate(part.tasks) if t in tasks])
            self.max_loaded = max(self.max_loaded, len(part))
            if len(part):
                yield part

    def load_all(self) -> Records:
        """Every record in memory (small corpora, evaluation, tests)."""
        out = Records()
        for part in self.iter_parts():
            out.extend(part)
        return out


class _ShardWriter:
    """Buffers records and writes them ``shard_size`` at a time; summarizes tasks."""

    def __init__(self, root: str, prefix: str, shard_size: int):
        self.root, self.prefix, self.shard_size = root, prefix, shard_size
        self.buffer = Records()
        self.shards: List[str] = []
        self.summary: Dict[str, TaskSummary] = {}

    def add(self, g: ProgramGraph, task: str, cost: float) -> None:
        self.buffer.graphs.append(g)
        self.buffer.tasks.append(task)
        self.buffer.costs.append(float(cost))
        self.summary.setdefault(task, TaskSummary()).add(g, float(cost))
        if len(self.buffer) >= self.shard_size:
            self.flush()

    def flush(self) -> None:
        if not len(self.buffer):
            return
        path = os.path.join(self.root, f"{self.prefix}{len(self.shards):06d}.shard")
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            pickle.dump((self.buffer.graphs, self.buffer.tasks, self.buffer.costs), f,
                        protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        self.shards.append(path)
        self.buffer = Records()


def _read_shard(path: str) -> Records:
    with open(path, "rb") as f:
        return Records(*pickle.load(f))


def _merge(stores: Sequence[RecordStore], root: str) -> RecordStore:
    shards: List[str] = []
    summary: Dict[str, TaskSummary] = {}
    for st in stores:
        shards += st.shards
        for key, s in st.summary.items():
            summary.setdefault(key, TaskSummary()).merge(s)
    return RecordStore(root, shards, summary)


def _featurize_log(log: str, root: str, prefix: str, shard_size: int,
                   featurizer_config, model=None) -> RecordStore:
    """Stream one log into shards ``root/prefix*.shard``."""
    from .adapter import GNNCostModel
    from .dataset import register_logs
    from .featurizer import task_key
    from .logfile import LogReport, iter_log
    from .records import group_by_task

    model = model or GNNCostModel(featurizer_config=featurizer_config)
    register_logs([log])
    writer = _ShardWriter(root, prefix, shard_size)
    report = LogReport(log)

    def flush(inputs, results):
        for group in group_by_task(inputs, results, model.rebuilder):
            key = task_key(group.task)
            for g, c in zip(model.featurize_measured(group.task, group.states), group.costs):
                if g.valid and g.num_nodes:
                    writer.add(g, key, c)

    inputs, results = [], []
    for inp, res in iter_log(log, report=report):
        inputs.append(inp)
        results.append(res)
        if len(inputs) == _CHUNK:
            flush(inputs, results)
            inputs, results = [], []
    flush(inputs, results)
    writer.flush()
    if model.rebuilder.skipped:
        report.skipped.update(model.rebuilder.skipped)
        model.rebuilder.skipped.clear()
    logger.info("featurized %s", report.describe())
    return RecordStore(root, writer.shards, writer.summary)


def featurize_logs(model, logs: Sequence[str], root: str, shard_size: int = 4096,
                   workers: int = 1) -> RecordStore:
    """Featurize every usable record of ``logs`` into shards in ``root``.

    Uses ``model``'s featurizer settings; task files beside the logs (see
    :mod:`tvm_gnn_cost.dataset`) are loaded first so that network workloads can
    be read. With ``workers > 1`` the logs are streamed in that many worker
    processes, one log each.
    """
    if shard_size < 1:
        raise ValueError(f"shard_size must be at least 1, got {shard_size}")
    os.makedirs(root, exist_ok=True)
    for old in glob.glob(os.path.join(root, "*.shard")):
        os.remove(old)
    prefixes = [f"{i:05d}-" for i in range(len(logs))]
    if workers > 1 and len(logs) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("spawn")  # TVM and torch do not survive a fork well
        n = len(logs)
        with ProcessPoolExecutor(min(workers, n), mp_context=ctx) as pool:
            parts = list(pool.map(_featurize_log, logs, [root] * n, prefixes, [shard_size] * n,
                                  [model.featurizer.config] * n))
    else:
        parts = [_featurize_log(log, root, p, shard_size, None, model)
                 for log, p in zip(logs, prefixes)]
    store = _merge(parts, root)
    if not len(store):
        raise ValueError(f"no usable measurement record in {list(logs)}; were the logs written "
                         "by Ansor and their task files kept beside them?")
    return store


def store_records(records: Records, root: str, shard_size: int = 4096) -> RecordStore:
    """Write records already in memory as a store (to train on them like on logs)."""
    os.makedirs(root, exist_ok=True)
    writer = _ShardWriter(root, "mem-", shard_size)
    for g, t, c in zip(records.graphs, records.tasks, records.costs):
        writer.add(g, t, c)
    writer.flush()
    return RecordStore(root, writer.shards, writer.summary)


__all__ = ["RecordStore", "Records", "TaskSummary", "featurize_logs", "store_records"]
