"""Ansor logs -> featurized records in shards (:mod:`.store`), in worker processes if asked.

Takes a featurizer (its settings are what a checkpoint trained on the records records), not
a cost model: each worker builds a featurizer of the same settings, and nothing more.
"""
from __future__ import annotations

import glob
import logging
import os
from typing import Sequence

from ..ansor.featurizer import StateFeaturizer, task_key
from ..ansor.logs import LogReport, iter_log
from ..ansor.records import TaskRebuilder, featurize_measured, group_by_task
from ..ansor.taskfile import register_logs
from ..core.config import FeaturizerConfig
from .store import RecordStore, ShardWriter, merge_stores

logger = logging.getLogger("tvm_gnn_cost")

_CHUNK = 1024  # records read before featurizing them together


def _featurize_log(log: str, root: str, prefix: str, shard_size: int,
                   featurizer, trust_pickle: bool = False) -> RecordStore:
    """Stream one log into shards ``root/prefix*.shard`` (``featurizer``: a
    :class:`StateFeaturizer`, or its config in a worker process)."""
    if isinstance(featurizer, FeaturizerConfig):
        featurizer = StateFeaturizer(featurizer)
    rebuilder = TaskRebuilder()
    register_logs([log], trust_pickle)
    writer = ShardWriter(root, prefix, shard_size)
    report = LogReport(log)

    def flush(inputs, results):
        for group in group_by_task(inputs, results, rebuilder):
            key = task_key(group.task)
            for g, c in zip(featurize_measured(featurizer, group.task, group.states),
                            group.costs):
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
    report.skipped.update(rebuilder.skipped)
    logger.info("featurized %s", report.describe())
    return RecordStore(root, writer.shards, writer.summary)


def featurize_logs(featurizer: StateFeaturizer, logs: Sequence[str], root: str,
                   shard_size: int = 4096, workers: int = 1,
                   trust_pickle: bool = False) -> RecordStore:
    """Featurize every usable record of ``logs`` with ``featurizer`` into shards in ``root``.

    Task files beside the logs (see :mod:`tvm_gnn_cost.ansor.taskfile`) are loaded first so
    that network workloads can be read (pickles only with ``trust_pickle``). With
    ``workers > 1`` the logs are streamed in that many worker processes, one log each, each
    with a featurizer of ``featurizer``'s settings.
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
                                  [featurizer.config] * n, [trust_pickle] * n))
    else:
        parts = [_featurize_log(log, root, p, shard_size, featurizer, trust_pickle)
                 for log, p in zip(logs, prefixes)]
    store = merge_stores(parts, root)
    if not len(store):
        raise NoRecordsError(f"no usable measurement record in {list(logs)}; were the logs "
                             "written by Ansor, with their task files beside them (x.tasks.json, "
                             "which tune and collect write next to x.json)?")
    return store


class NoRecordsError(ValueError):
    """No log given holds a record whose task is known."""


__all__ = ["NoRecordsError", "featurize_logs"]
