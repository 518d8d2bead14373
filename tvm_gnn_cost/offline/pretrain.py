"""Offline training on Ansor logs: a validation split by task, early stopping, best weights kept.

Three steps, each taking only what it needs: a featurizer turns logs into a store of records
(:func:`~tvm_gnn_cost.offline.featurize.featurize_logs`), :func:`pretrain` trains a trainer's
GNN on the store by a recipe and returns the best weights, and the adapter adopts them with
the recipe (:meth:`~tvm_gnn_cost.core.checkpoint.Checkpointed.adopt_pretrained`).
:func:`pretrain_logs` does the three for a :class:`GNNCostModel`::

    model, result = pretrain_logs(["data/r18.json", "data/r50.json"], PretrainRecipe())
    model.save("gnn-cpu.pt")   # GNNCostModel().load("gnn-cpu.pt") predicts from the first round
"""
from __future__ import annotations

import collections
import copy
import dataclasses
import logging
import os
import tempfile
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence

import numpy as np
import torch

from ..core.batching import task_batches
from ..core.config import PretrainConfig, PretrainRecipe, TrainerConfig
from ..core.graph import batch_graphs
from ..core.losses import make_loss, uses_log_throughput
from ..core.metrics import pairwise_accuracy
from ..core.trainer import OnlineTrainer, make_optimizer, score_graphs, train_steps
from .featurize import featurize_logs
from .store import Records, RecordStore, store_records

logger = logging.getLogger("tvm_gnn_cost")


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
    records: int = 0  # featurized records, training and validation
    shards: int = 0  # shard files they were streamed from
    max_in_memory: int = 0  # most records held in memory at once while training
    state: Optional[dict] = dataclasses.field(default=None, repr=False)  # the best weights

    def to_dict(self) -> dict:
        """A JSON-friendly copy (what ``tvm-gnn-cost pretrain`` writes for scripts), without
        the weights; NaN accuracies (no validation task) become None."""
        def clean(x):
            return None if isinstance(x, float) and x != x else x
        d = dataclasses.asdict(dataclasses.replace(self, state=None))
        d.pop("state")
        d["val_accuracy"] = [clean(a) for a in d["val_accuracy"]]
        d["best_val_accuracy"] = clean(d["best_val_accuracy"])
        return d


def load_records(featurizer, logs: Sequence[str], workers: int = 1,
                 trust_pickle: bool = False) -> Records:
    """Every usable record of ``logs``, featurized by ``featurizer`` (a
    :class:`~tvm_gnn_cost.ansor.featurizer.StateFeaturizer`), in memory.

    Task files beside the logs (see :mod:`tvm_gnn_cost.ansor.taskfile`) are loaded
    first so that network workloads can be read (pickles only with ``trust_pickle``).
    With ``workers > 1`` the logs are read and featurized in that many worker processes,
    one log at a time.
    For corpora larger than memory, :func:`pretrain` streams a store of shards instead.
    """
    with tempfile.TemporaryDirectory(prefix="gnn-records-") as root:
        return featurize_logs(featurizer, logs, root, workers=workers,
                              trust_pickle=trust_pickle).load_all()


def split_task_names(names: Sequence[str], val_fraction: float, seed: int):
    """Task keys for training and for validation, as two sets."""
    names = sorted(set(names))
    rng = np.random.default_rng(seed)
    rng.shuffle(names)
    n_val = int(round(val_fraction * len(names))) if len(names) > 1 else 0
    return set(names[n_val:]), set(names[:n_val])


def split_tasks(tasks: Sequence[str], val_fraction: float, seed: int):
    """Indices of training and validation records, whole tasks on each side."""
    val = split_task_names(tasks, val_fraction, seed)[1]
    train_idx = [i for i, t in enumerate(tasks) if t not in val]
    val_idx = [i for i, t in enumerate(tasks) if t in val]
    return train_idx, val_idx


def pretrain_logs(logs: Sequence[str], recipe: Optional[PretrainRecipe] = None,
                  progress: bool = False, records: Optional[Records] = None, nproc: int = 1,
                  workers: int = 1, cache_dir: Optional[str] = None,
                  trust_pickle: bool = False):
    """A :class:`~tvm_gnn_cost.ansor.cost_model.GNNCostModel` pretrained on ``logs`` by
    ``recipe`` (default: the shipped checkpoint's), and what :func:`pretrain` did.

    The logs are featurized once, by the recipe's featurizer, into shards on disk
    (``cache_dir``, or a temporary folder; ``workers`` processes, one log each;
    ``trust_pickle`` lets them read task files that are pickles), or ``records`` already
    featurized are used. The model keeps the recipe it was trained with and predicts at once.
    """
    from ..ansor.cost_model import GNNCostModel

    recipe = recipe or PretrainRecipe()
    model = GNNCostModel(model_config=recipe.model, trainer_config=recipe.trainer,
                         featurizer_config=recipe.featurizer)
    with tempfile.TemporaryDirectory(prefix="gnn-shards-") as tmp:
        root = cache_dir or tmp
        if records is not None:
            store = store_records(records, root, recipe.pretrain.shard_size)
        else:
            store = featurize_logs(model.featurizer, logs, root, recipe.pretrain.shard_size,
                                   workers, trust_pickle)
        result = pretrain(model.trainer, store, recipe, progress, nproc)
    model.adopt_pretrained(result.state, recipe)
    return model, result


def pretrain(trainer: OnlineTrainer, store: RecordStore, recipe: PretrainRecipe,
             progress: bool = False, nproc: int = 1) -> PretrainResult:
    """Train ``trainer``'s GNN on the records of ``store`` by ``recipe.pretrain``; returns
    what was done, with the best weights in ``state`` (for the adapter to adopt).

    Each epoch streams the store's shards, ``mix`` at a time, so memory does not grow with
    the corpus. Whole tasks are held out for validation (``val_fraction``); the weights of
    the epoch with the best validation pairwise accuracy are kept (the last epoch's when no
    task is held out), and training stops after ``patience`` epochs without a better one.
    With ``nproc > 1`` the epochs run data-parallel in ``nproc`` processes
    (``torch.distributed`` DDP over gloo on 127.0.0.1): each global batch is split between
    the processes, the loss ranks the pairs of the whole batch from the gathered scores, and
    the gradients are averaged, so each step's gradient is one process's, up to rounding and
    dropout's draws.
    """
    cfg = recipe.pretrain
    if nproc < 1:
        raise ValueError(f"nproc must be at least 1, got {nproc}")
    logger.info("pretrain: %d records of %d tasks in %d shards", len(store),
                len(store.tasks), len(store.shards))
    train, val = split_task_names(store.tasks, cfg.val_fraction, cfg.seed)
    trainer.model.set_normalization_stats(*store.feature_stats(sorted(train)))
    job = _Job(store, train, val, cfg, trainer.config, progress)
    if nproc == 1:
        out = _epochs(trainer.model, make_optimizer(trainer.model, trainer.config), job,
                      rank=0, world=1)
    else:
        out = _spawn(trainer.model, job, nproc)
    return PretrainResult(train_tasks=len(train), val_tasks=len(val), records=len(store),
                          shards=len(store.shards), **out)


@dataclass
class _Job:
    store: RecordStore
    train: set
    val: set
    cfg: PretrainConfig
    trainer: TrainerConfig  # batch size, loss, learning rate, weight decay
    progress: bool


def _validate(module, job: _Job) -> float:
    """Pairwise accuracy over the validation tasks, streamed shard by shard."""
    if not job.val:
        return float("nan")
    scores, truth, tasks = [], [], []
    for part in job.store.iter_parts(job.val, mix=job.cfg.mix):
        scores.append(score_graphs(module, part.graphs))
        truth.append(job.store.labels(part))
        tasks += part.tasks
    return pairwise_accuracy(np.concatenate(scores), np.concatenate(truth), np.asarray(tasks))


def _epochs(net, optimizer, job: _Job, rank: int, world: int) -> dict:
    """The training loop, seeded (dropout included) without touching the caller's RNG."""
    with torch.random.fork_rng():
        torch.manual_seed(job.cfg.seed * 7919 + rank)
        return _train(net, optimizer, job, rank, world)


def _train(net, optimizer, job: _Job, rank: int, world: int) -> dict:
    """The training loop; rank 0 validates, keeps the best weights and decides to stop."""
    import torch.distributed as dist

    cfg = job.cfg
    module = net.module if hasattr(net, "module") else net
    loss_fn = make_loss(job.trainer.loss)
    if world > 1:
        loss_fn = _whole_batch_loss(loss_fn, rank, world)
    gen = torch.Generator().manual_seed(cfg.seed)  # the same batches in every process
    best = {"acc": -1.0, "epoch": 0, "state": None}
    losses: List[float] = []
    accs: List[float] = []
    bar = None
    if job.progress and rank == 0:
        from tqdm import tqdm

        bar = tqdm(total=cfg.epochs, desc="pretrain", unit="epoch")
    stale, epoch = 0, 0
    window: collections.deque = collections.deque(maxlen=max(1, cfg.average_epochs))
    kept = copy.deepcopy(module) if cfg.average_epochs > 1 and rank == 0 else module
    try:
        for epoch in range(1, cfg.epochs + 1):
            net.train()
            steps = train_steps(net, optimizer, loss_fn, _epoch_batches(job, gen, rank, world))
            net.eval()
            losses.append(sum(steps) / max(1, len(steps)))
            stop = torch.zeros(1)
            if rank == 0:
                if kept is not module:
                    window.append(copy.deepcopy(module.state_dict()))
                    kept.load_state_dict(_mean_state(window))
                acc = _validate(kept, job)
                accs.append(acc)
                if bar:
                    bar.update(1)
                    bar.set_postfix_str(f"loss {losses[-1]:.4f} val acc {acc:.3f}")
                if not job.val or acc > best["acc"]:
                    best.update(acc=acc, epoch=epoch, state=copy.deepcopy(kept.state_dict()))
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
    return {"max_in_memory": job.store.max_loaded, "epochs": epoch, "best_epoch": best["epoch"],
            "best_val_accuracy": best["acc"], "train_loss": losses, "val_accuracy": accs,
            "state": best["state"]}


def _mean_state(states) -> dict:
    """The element-wise mean of state dicts of one module."""
    return {k: torch.stack([s[k] for s in states]).mean(0) if states[0][k].is_floating_point()
            else states[-1][k] for k in states[0]}


def _epoch_batches(job: _Job, gen: torch.Generator, rank: int, world: int) -> Iterator:
    """One epoch of training batches, streamed shard by shard; each process takes its share."""
    store, cfg = job.store, job.cfg
    task_ids = {t: i for i, t in enumerate(store.tasks)}
    log_labels = uses_log_throughput(job.trainer.loss)
    order = torch.randperm(len(store.shards), generator=gen).tolist()
    smallest = max(2, world)  # a pair to rank, and a program for every process
    for part in store.iter_parts(job.train, order, cfg.mix):
        if len(part) < smallest:
            continue
        y = torch.from_numpy(store.labels(part, log_labels))
        g = torch.tensor([task_ids[t] for t in part.tasks], dtype=torch.int64)
        for batch in task_batches(g.numpy(), max(smallest, job.trainer.batch_size),
                                  cfg.per_task, gen):
            if len(batch) < smallest:
                continue
            idx = batch[rank::world]
            # the whole batch's labels: the loss ranks the pairs of the whole batch
            # (_whole_batch_loss), not of this process's share
            yield batch_graphs([part.graphs[i] for i in idx.tolist()]), y[batch], g[batch]


def _whole_batch_loss(loss_fn, rank: int, world: int):
    """``loss_fn`` over a whole batch from each process's share of its scores.

    A ranking loss over each share alone would see only the pairs inside it (half of a batch's
    same-task pairs with two processes) and train worse than one process. Process ``k`` scores
    programs ``k, k + world, ...`` of the batch; every process gathers all the scores and
    computes the whole batch's loss, its own scores carrying ``world`` times their gradient
    and the others' none: the gradients DDP averages then sum to the one-process gradient.
    """
    import torch.distributed as dist

    def loss(r: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
        n = len(y)
        share = -(-n // world)
        parts = [r.new_empty(share) for _ in range(world)]
        dist.all_gather(parts, torch.nn.functional.pad(r.detach(), (0, share - len(r))))
        order = torch.arange(n)
        whole = torch.stack(parts)[order % world, order // world]
        whole[rank::world] = r.detach() + world * (r - r.detach())  # value r, gradient x world
        return loss_fn(whole, y, group)

    return loss


def _spawn(net, job: _Job, nproc: int) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gnn-ddp-") as tmp:
        out = os.path.join(tmp, "result.pt")
        spawn_group(_ddp_worker, nproc, net, job, out)
        return torch.load(out, weights_only=False)


def spawn_group(fn, nproc: int, *args) -> None:
    """Run ``fn(rank, nproc, port, *args)`` in ``nproc`` processes, ``port`` a free one on
    127.0.0.1 for their process group; once more from the start if a process is killed by a
    signal (seen: SIGABRT, "terminate called without an active exception", seconds after
    start), since such a run has nothing to resume from."""
    import socket

    import torch.multiprocessing as mp

    for attempt in (1, 2):
        with socket.socket() as s:  # a free port for this attempt's process group
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            mp.spawn(fn, args=(nproc, port, *args), nprocs=nproc, join=True)
            return
        except mp.ProcessExitedException as err:
            if not err.signal_name or attempt == 2:
                raise
            logger.warning("a process died (%s); starting the %d processes again", err, nproc)


def _ddp_worker(rank: int, world: int, port: int, net, job: _Job, out: str) -> None:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    try:
        ddp = DistributedDataParallel(net)
        result = _epochs(ddp, make_optimizer(ddp, job.trainer), job, rank, world)
        if rank == 0:
            torch.save(result, out)
    finally:
        dist.destroy_process_group()


__all__ = ["PretrainConfig", "PretrainRecipe", "PretrainResult", "Records", "load_records",
           "pretrain", "pretrain_logs", "split_task_names", "split_tasks"]
