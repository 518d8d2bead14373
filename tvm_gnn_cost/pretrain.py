"""Offline training on Ansor logs: a validation split by task, early stopping, best weights kept.

    model = GNNCostModel()
    result = pretrain(model, ["data/r18.json", "data/r50.json"], PretrainConfig(epochs=30))
    model.save("gnn-cpu.pt")   # GNNCostModel().load("gnn-cpu.pt") predicts from the first round
"""
from __future__ import annotations

import copy
import logging
import os
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np
import torch

from .config import PretrainConfig
from .dataset import register_logs
from .graph import ProgramGraph, batch_graphs
from .losses import make_loss
from .logfile import read_log
from .metrics import normalized_throughput, pairwise_accuracy
from .records import group_by_task
from .trainer import score_graphs

logger = logging.getLogger("tvm_gnn_cost")


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
    """What :func:`pretrain` did: epochs run, the best one, and the curves."""

    epochs: int
    best_epoch: int
    best_val_accuracy: float
    train_loss: List[float]
    val_accuracy: List[float]
    train_tasks: int
    val_tasks: int


def load_records(model, logs: Sequence[str], workers: int = 1) -> Records:
    """Featurize every usable record of ``logs`` with ``model``'s featurizer settings.

    Task files beside the logs (see :mod:`tvm_gnn_cost.dataset`) are loaded
    first so that network workloads can be read. With ``workers > 1`` the logs
    are read and featurized in that many worker processes, one log at a time.
    """
    out = Records()
    if workers > 1 and len(logs) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("spawn")  # TVM and torch do not survive a fork well
        with ProcessPoolExecutor(min(workers, len(logs)), mp_context=ctx) as pool:
            parts = pool.map(_featurize_log, logs, [model.featurizer.config] * len(logs))
            for part in parts:
                out.graphs += part.graphs
                out.tasks += part.tasks
                out.costs += part.costs
    else:
        for log in logs:
            _featurize_into(model, log, out)
    if not out.graphs:
        raise ValueError(f"no usable measurement record in {list(logs)}; were the logs written "
                         "by Ansor and their task files kept beside them?")
    return out


def _featurize_into(model, log: str, out: Records) -> None:
    from .featurizer import task_key

    register_logs([log])
    inputs, results, report = read_log(log)
    for group in group_by_task(inputs, results, model.rebuilder):
        graphs = model.featurize_measured(group.task, group.states)
        for g, c in zip(graphs, group.costs):
            if g.valid and g.num_nodes:
                out.graphs.append(g)
                out.tasks.append(task_key(group.task))
                out.costs.append(c)
    if model.rebuilder.skipped:
        report.skipped.update(model.rebuilder.skipped)
        model.rebuilder.skipped.clear()
    logger.info("pretrain: %s", report.describe())


def _featurize_log(log: str, featurizer_config) -> Records:
    from .adapter import GNNCostModel

    out = Records()
    _featurize_into(GNNCostModel(featurizer_config=featurizer_config), log, out)
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
             progress: bool = False, records: Optional[Records] = None,
             nproc: int = 1, workers: int = 1) -> PretrainResult:
    """Train ``model`` (a ``GNNCostModel``) on ``logs``; it predicts at once afterwards.

    The weights of the epoch with the best validation pairwise accuracy are kept
    (the last epoch's when no task is held out). With ``nproc > 1`` the epochs
    run data-parallel in ``nproc`` processes (``torch.distributed`` DDP over
    gloo on 127.0.0.1): each global batch is split between the processes and
    their gradients averaged, so the steps are the same as with one process.
    ``workers`` processes read and featurize the logs (see :func:`load_records`).
    """
    cfg = config or PretrainConfig()
    if nproc < 1:
        raise ValueError(f"nproc must be at least 1, got {nproc}")
    data = records or load_records(model, logs, workers)
    train_idx, val_idx = split_tasks(data.tasks, cfg.val_fraction, cfg.seed)
    train, val = data.subset(train_idx), data.subset(val_idx)
    trainer = model.trainer
    trainer.model.set_normalization(torch.from_numpy(np.concatenate([x.features
                                                                     for x in train.graphs])))
    trainer.normalized = True
    job = _Job(train, val, cfg, trainer.config.batch_size, trainer.config.loss,
               trainer.config.lr, trainer.config.weight_decay, progress)
    if nproc == 1:
        out = _epochs(trainer.model, trainer.optimizer, job, rank=0, world=1)
    else:
        out = _spawn(trainer.model, job, nproc)
    trainer.model.load_state_dict(out.pop("state"))
    trainer.model.eval()
    trainer.n_fits = max(trainer.n_fits, 1)
    return PretrainResult(train_tasks=len(set(train.tasks)), val_tasks=len(set(val.tasks)), **out)


@dataclass
class _Job:
    train: Records
    val: Records
    cfg: PretrainConfig
    batch_size: int
    loss: str
    lr: float
    weight_decay: float
    progress: bool


def _epochs(net, optimizer, job: _Job, rank: int, world: int) -> dict:
    """The training loop; rank 0 validates, keeps the best weights and decides to stop."""
    import torch.distributed as dist

    cfg, train, val = job.cfg, job.train, job.val
    module = net.module if hasattr(net, "module") else net
    loss_fn = make_loss(job.loss)
    groups = np.unique(np.asarray(train.tasks), return_inverse=True)[1]
    y = torch.from_numpy(normalized_throughput(np.asarray(train.costs), groups).astype(np.float32))
    g = torch.from_numpy(groups.astype(np.int64))
    val_truth = normalized_throughput(np.asarray(val.costs), np.asarray(val.tasks))
    gen = torch.Generator().manual_seed(cfg.seed)  # the same batches in every process
    n = len(train.graphs)
    bs = max(2 * world, min(job.batch_size, n))
    best = {"acc": -1.0, "epoch": 0, "state": None}
    losses: List[float] = []
    accs: List[float] = []
    bar = None
    if job.progress and rank == 0:
        from tqdm import tqdm

        bar = tqdm(total=cfg.epochs, desc="pretrain", unit="epoch")
    stale, epoch = 0, 0
    try:
        for epoch in range(1, cfg.epochs + 1):
            net.train()
            perm = torch.randperm(n, generator=gen)
            total, steps = 0.0, 0
            for b in range(0, max(1, n - bs + 1), bs):
                idx = perm[b:b + bs][rank::world]
                loss = loss_fn(net(batch_graphs([train.graphs[i] for i in idx.tolist()])),
                               y[idx], g[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item()
                steps += 1
            net.eval()
            losses.append(total / max(1, steps))
            stop = torch.zeros(1)
            if rank == 0:
                acc = float("nan")
                if val.graphs:
                    acc = pairwise_accuracy(score_graphs(module, val.graphs), val_truth,
                                            np.asarray(val.tasks))
                accs.append(acc)
                if bar:
                    bar.update(1)
                    bar.set_postfix_str(f"loss {losses[-1]:.4f} val acc {acc:.3f}")
                if not val.graphs or acc > best["acc"]:
                    best.update(acc=acc, epoch=epoch, state=copy.deepcopy(module.state_dict()))
                    stale = 0
                else:
                    stale += 1
                    if stale >= cfg.patience:
                        logger.info("pretrain: early stop at epoch %d (best %d)", epoch,
                                    best["epoch"])
                        stop[0] = 1
            if world > 1:
                dist.broadcast(stop, src=0)
            if stop[0]:
                break
    finally:
        if bar:
            bar.close()
    return {"epochs": epoch, "best_epoch": best["epoch"], "best_val_accuracy": best["acc"],
            "train_loss": losses, "val_accuracy": accs, "state": best["state"]}


def _spawn(net, job: _Job, nproc: int) -> dict:
    import socket
    import tempfile

    import torch.multiprocessing as mp

    with socket.socket() as s:  # a free port for the process group
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="gnn-ddp-") as tmp:
        out = os.path.join(tmp, "result.pt")
        mp.spawn(_ddp_worker, args=(nproc, port, net, job, out), nprocs=nproc, join=True)
        return torch.load(out, weights_only=False)


def _ddp_worker(rank: int, world: int, port: int, net, job: _Job, out: str) -> None:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    try:
        ddp = DistributedDataParallel(net)
        optimizer = torch.optim.AdamW(ddp.parameters(), lr=job.lr, weight_decay=job.weight_decay)
        result = _epochs(ddp, optimizer, job, rank, world)
        if rank == 0:
            torch.save(result, out)
    finally:
        dist.destroy_process_group()


__all__ = ["PretrainConfig", "PretrainResult", "Records", "load_records", "pretrain",
           "split_tasks"]
