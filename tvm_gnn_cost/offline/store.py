"""Featurized measured programs on disk, in shards, so pretraining streams its data.

TenSet-sized corpora hold tens of millions of records: more graphs than fit in
memory. Records are written ``shard_size`` at a time (:class:`ShardWriter`, fed by
:mod:`.featurize` from Ansor logs); :class:`RecordStore` keeps only per-task summaries
in memory (best cost, record count, feature sums) and yields shards a few at a time, so
memory is bounded by ``mix x shard_size`` records whatever the corpus size. Knows nothing
of TVM.
"""
from __future__ import annotations

import logging
import os
import pickle
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np

from ..core.files import replaced_whole
from ..core.graph import ProgramGraph
from ..core.labels import clean_costs, labels

logger = logging.getLogger("tvm_gnn_cost")

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
        self.best = min(self.best, float(clean_costs([cost])[0]))
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
        """:func:`..core.labels.labels` of ``part``, float32, each task's best cost taken over
        the whole store (not only ``part``)."""
        best = [self.summary[t].best for t in part.tasks]
        return labels(part.costs, log=log_throughput, best=best).astype(np.float32)

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


class ShardWriter:
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
        with replaced_whole(path) as f:
            pickle.dump((self.buffer.graphs, self.buffer.tasks, self.buffer.costs), f,
                        protocol=pickle.HIGHEST_PROTOCOL)
        self.shards.append(path)
        self.buffer = Records()


def _read_shard(path: str) -> Records:
    with open(path, "rb") as f:
        return Records(*pickle.load(f))


def merge_stores(stores: Sequence[RecordStore], root: str) -> RecordStore:
    shards: List[str] = []
    summary: Dict[str, TaskSummary] = {}
    for st in stores:
        shards += st.shards
        for key, s in st.summary.items():
            summary.setdefault(key, TaskSummary()).merge(s)
    return RecordStore(root, shards, summary)


def store_records(records: Records, root: str, shard_size: int = 4096) -> RecordStore:
    """Write records already in memory as a store (to train on them like on logs)."""
    os.makedirs(root, exist_ok=True)
    writer = ShardWriter(root, "mem-", shard_size)
    for g, t, c in zip(records.graphs, records.tasks, records.costs):
        writer.add(g, t, c)
    writer.flush()
    return RecordStore(root, writer.shards, writer.summary)


__all__ = ["RecordStore", "Records", "ShardWriter", "TaskSummary", "merge_stores", "store_records"]
