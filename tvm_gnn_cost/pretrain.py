"""Offline training on Ansor logs: a validation split by task, early stopping, best weights kept.

    model = GNNCostModel()
    result = pretrain(model, ["data/r18.json", "data/r50.json"], PretrainConfig(epochs=30))
    model.save("gnn-cpu.pt")   # GNNCostModel().load("gnn-cpu.pt") predicts from the first round
"""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np
import torch

from .dataset import register_logs
from .graph import ProgramGraph, batch_graphs
from .logfile import read_log
from .metrics import normalized_throughput, pairwise_accuracy
from .records import group_by_task

logger = logging.getLogger("tvm_gnn_cost")


@dataclass
class PretrainConfig:
    """How long and on what to train offline."""

    epochs: int = 30
    patience: int = 5  # epochs without a better validation accuracy before stopping
    val_fraction: float = 0.2  # share of tasks held out for validation (whole tasks)
    seed: int = 0


@dataclass
class Records:
    """Featurized measured programs: one graph, task key and cost (seconds) each."""

    graphs: List[ProgramGraph] = field(default_factory=list)
    tasks: List[str] = field(default_factory=list)
    costs: List[float] = field(default_factory=list)

    def subset(self, idx: Sequence[int]) -> "Records":
        return Records([self.graphs[i] for i in idx], [self.tasks[i] for i in idx],
                       [self.costs[i] for i in idx])


@dataclass
class PretrainResult:
    epochs: int
    best_epoch: int
    best_val_accuracy: float
    train_loss: List[float]
    val_accuracy: List[float]
    train_tasks: int
    val_tasks: int


def load_records(model, logs: Sequence[str]) -> Records:
    """Featurize every usable record of ``logs`` with ``model``'s featurizer.

    Task files beside the logs (see :mod:`tvm_gnn_cost.dataset`) are loaded
    first so that network workloads can be read.
    """
    from .featurizer import task_key

    register_logs(logs)
    out = Records()
    for log in logs:
        inputs, results, report = read_log(log)
        for group in group_by_task(inputs, results, model.rebuilder):
            graphs = model._featurize_measured(group.task, group.states)
            for g, c in zip(graphs, group.costs):
                if g.valid and g.num_nodes:
                    out.graphs.append(g)
                    out.tasks.append(task_key(group.task))
                    out.costs.append(c)
        logger.info("pretrain: %s", report.describe())
    if model.rebuilder.skipped:
        logger.warning("pretrain: skipped records: %s", dict(model.rebuilder.skipped))
    if not out.graphs:
        raise ValueError(f"no usable measurement record in {list(logs)}; were the logs written "
                         "by Ansor and their task files kept beside them?")
    return out


def split_tasks(tasks: Sequence[str], val_fraction: float, seed: int):
    """Indices of training and validation records, whole tasks on each side."""
    names = sorted(set(tasks))
    rng = np.random.default_rng(seed)
    rng.shuffle(names)
    n_val = int(round(val_fraction * len(names))) if len(names) > 1 else 0
    val = set(names[:n_val])
    train_idx = [i for i, t in enumerate(tasks) if t not in val]
    val_idx = [i for i, t in enumerate(tasks) if t in val]
    return train_idx, val_idx


def pretrain(model, logs: Sequence[str], config: Optional[PretrainConfig] = None,
             progress: bool = False, records: Optional[Records] = None) -> PretrainResult:
    """Train ``model`` (a ``GNNCostModel``) on ``logs``; it predicts at once afterwards.

    The weights of the epoch with the best validation pairwise accuracy are kept
    (the last epoch's when no task is held out).
    """
    cfg = config or PretrainConfig()
    data = records or load_records(model, logs)
    train_idx, val_idx = split_tasks(data.tasks, cfg.val_fraction, cfg.seed)
    train, val = data.subset(train_idx), data.subset(val_idx)
    trainer = model.trainer
    tcfg = trainer.config
    groups = np.unique(np.asarray(train.tasks), return_inverse=True)[1]
    y = torch.from_numpy(normalized_throughput(np.asarray(train.costs), groups).astype(np.float32))
    g = torch.from_numpy(groups.astype(np.int64))
    trainer.model.set_normalization(torch.from_numpy(np.concatenate([x.features
                                                                     for x in train.graphs])))
    trainer.normalized = True
    val_truth = normalized_throughput(np.asarray(val.costs), np.asarray(val.tasks))
    gen = torch.Generator().manual_seed(cfg.seed)
    n, bs = len(train.graphs), min(tcfg.batch_size, len(train.graphs))
    best_acc, best_epoch, best_state, stale = -1.0, 0, None, 0
    losses: List[float] = []
    accs: List[float] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.epochs, desc="pretrain", unit="epoch")
    epoch = 0
    try:
        for epoch in range(1, cfg.epochs + 1):
            trainer.model.train()
            perm = torch.randperm(n, generator=gen)
            total = 0.0
            for b in range(0, n - bs + 1, bs):
                idx = perm[b:b + bs]
                loss = trainer.loss_fn(trainer.model(batch_graphs([train.graphs[i]
                                                                   for i in idx.tolist()])),
                                       y[idx], g[idx])
                trainer.optimizer.zero_grad()
                loss.backward()
                trainer.optimizer.step()
                total += loss.item()
            trainer.model.eval()
            trainer.n_fits = max(trainer.n_fits, 1)
            losses.append(total / max(1, n // bs))
            acc = float("nan")
            if val.graphs:
                acc = pairwise_accuracy(trainer.predict(val.graphs), val_truth,
                                        np.asarray(val.tasks))
            accs.append(acc)
            if bar:
                bar.update(1)
                bar.set_postfix_str(f"loss {losses[-1]:.4f} val acc {acc:.3f}")
            if not val.graphs or acc > best_acc:
                best_acc, best_epoch, stale = acc, epoch, 0
                best_state = copy.deepcopy(trainer.model.state_dict())
            else:
                stale += 1
                if stale >= cfg.patience:
                    logger.info("pretrain: early stop at epoch %d (best %d)", epoch, best_epoch)
                    break
    finally:
        if bar:
            bar.close()
    if best_state is not None:
        trainer.model.load_state_dict(best_state)
    trainer.model.eval()
    return PretrainResult(epoch, best_epoch, best_acc, losses, accs,
                          len(set(train.tasks)), len(set(val.tasks)))


__all__ = ["PretrainConfig", "PretrainResult", "Records", "load_records", "pretrain",
           "split_tasks"]
