"""Online training of the GNN on measured programs; knows nothing of TVM.

:class:`OnlineTrainer` keeps the history of (graph, task, cost), turns costs
into per-task labels, fine-tunes the model within a bounded budget per call
of :meth:`fit`, and scores graphs in batches.
"""
from __future__ import annotations

import logging
import math
import time
import zlib
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import torch

from .config import ModelConfig, TrainerConfig, check_trainer_config
from .graph import GraphBatch, ProgramGraph, batch_graphs
from .losses import make_loss, score_from_raw, uses_log_throughput
from .labels import clean_costs, labels
from .model import ProgramGNN

logger = logging.getLogger("tvm_gnn_cost")

_PREDICT_CHUNK = 4096


def make_optimizer(model: torch.nn.Module, config: TrainerConfig) -> torch.optim.Optimizer:
    """The optimizer of every training run, online and offline: AdamW at ``config.lr``."""
    return torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)


def train_steps(net: torch.nn.Module, optimizer: torch.optim.Optimizer, loss_fn,
                batches: Iterable[Tuple[GraphBatch, torch.Tensor, torch.Tensor]],
                max_steps: Optional[int] = None,
                max_seconds: Optional[float] = None) -> List[float]:
    """The one optimizer loop: a step for each ``(graphs, labels, task ids)`` batch, until the
    batches run out, ``max_steps`` steps are done, or ``max_seconds`` have passed after a step.

    Online training (:meth:`OnlineTrainer.fit`) and pretraining
    (:func:`tvm_gnn_cost.offline.pretrain.pretrain`) differ only in the batches they feed it.
    Returns the loss of every step.
    """
    losses: List[float] = []
    start = time.perf_counter()
    for batch, y, groups in batches:
        loss = loss_fn(net(batch), y, groups)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if max_steps is not None and len(losses) >= max_steps:
            break
        if max_seconds is not None and time.perf_counter() - start > max_seconds:
            break
    return losses


@dataclass
class FitStats:
    """What one :meth:`OnlineTrainer.fit` did."""

    steps: int
    epochs: float
    seconds: float
    loss_first: float
    loss_last: float
    n_train: int


class OnlineTrainer:
    """History, labels, training and batched scoring for :class:`ProgramGNN`.

    Parameters
    ----------
    n_features : int
        Node feature width of the graphs it will see.
    model_config, trainer_config : optional
        Model shape and training settings; defaults just run.
    n_store_features : int
        Width of the graphs' per-store rows of the lowered program (0: none).
    """

    def __init__(self, n_features: int, model_config: Optional[ModelConfig] = None,
                 trainer_config: Optional[TrainerConfig] = None, n_store_features: int = 0):
        self.model_config = model_config or ModelConfig()
        config = trainer_config or TrainerConfig()
        check_trainer_config(config)
        self.n_features = n_features
        with torch.random.fork_rng():  # seed the weights without touching the caller's RNG
            torch.manual_seed(config.seed)
            self.model = ProgramGNN(n_features, self.model_config, n_store_features)
        self.configure(config)
        self.graphs: List[ProgramGraph] = []
        self.groups: List[int] = []
        self.costs: List[float] = []
        self.task_ids: Dict[str, int] = {}
        self.task_valid: Dict[str, int] = {}  # measured records of a task that did not fail
        self.n_seen = 0  # records offered to add(), valid or not
        self.n_fits = 0
        self.normalized = False
        # the weights adopted or loaded last, which TrainerConfig.anchor holds training near
        self.anchor: Optional[List[torch.Tensor]] = None

    def configure(self, config: TrainerConfig) -> None:
        """Train from now on with ``config``: its loss, and a fresh optimizer at its rate."""
        check_trainer_config(config)
        self.config = config
        self.optimizer = make_optimizer(self.model, config)
        self.loss_fn = make_loss(config.loss)
        self.log_throughput = uses_log_throughput(config.loss)

    def adopt(self, weights: dict, config: TrainerConfig) -> None:
        """Take weights trained elsewhere (pretraining, with their input normalization): the
        model predicts at once, and trains on with ``config`` (with ``config.anchor``, held
        near these weights)."""
        self.model.load_state_dict(weights)
        self.model.eval()
        self.normalized = True
        self.n_fits = max(self.n_fits, 1)
        self.configure(config)
        self._set_anchor()

    def _set_anchor(self) -> None:
        """Keep a copy of the weights as they are now where the configuration anchors
        training to them (a frozen prior, which never trains, keeps none)."""
        self.anchor = ([p.detach().clone() for p in self.model.parameters()]
                       if self.config.anchor else None)

    def _training_loss(self):
        """The configured loss, plus the pull towards the adopted weights where there is one."""
        if not self.config.anchor or self.anchor is None:
            return self.loss_fn
        params, anchor, strength = list(self.model.parameters()), self.anchor, self.config.anchor

        def anchored(r, y, groups):
            pull = sum(((p - a) ** 2).sum() for p, a in zip(params, anchor))
            return self.loss_fn(r, y, groups) + strength * pull

        return anchored

    # ---------------------------------------------------------------- history
    def add(self, graphs: Sequence[ProgramGraph], tasks: Sequence[str], costs: Sequence[float]) -> int:
        """Append measured programs; returns how many were usable for training.

        ``costs`` are mean seconds; a failed measurement (see
        :func:`.labels.clean_costs`) is kept as the worst program of its task (label 0). Graphs that could not be built are
        skipped, since they carry no features to learn from.
        """
        if not (len(graphs) == len(tasks) == len(costs)):
            raise ValueError("add() needs as many tasks and costs as graphs")
        used = 0
        for g, t, c in zip(graphs, tasks, clean_costs(costs)):
            self.n_seen += 1
            if not g.valid or g.num_nodes == 0:
                continue
            if math.isfinite(c):
                self.task_valid[t] = self.task_valid.get(t, 0) + 1
            gid = self.task_ids.setdefault(t, len(self.task_ids))
            self.graphs.append(g)
            self.groups.append(gid)
            self.costs.append(float(c))
            used += 1
        overflow = len(self.graphs) - self.config.max_history
        if overflow > 0:
            del self.graphs[:overflow], self.groups[:overflow], self.costs[:overflow]
        return used

    def labels(self) -> np.ndarray:
        """Labels of the history for the configured loss: normalized throughput
        ``min_cost(task) / cost`` (0 if failed), or for log-throughput losses
        ``ln(1 ms / cost)`` (``-inf`` if failed)."""
        return labels(self.costs, self.groups, log=self.log_throughput)

    @property
    def ready(self) -> bool:
        """True once the model has been fit on at least ``num_warmup_sample`` records."""
        return self.n_fits > 0

    # ---------------------------------------------------------------- training
    def fit(self) -> Optional[FitStats]:
        """Fine-tune on the whole history within the configured budget.

        Returns None (and trains nothing) before ``num_warmup_sample`` usable
        records, or while every record of every task is a failure.
        """
        cfg = self.config
        n = len(self.graphs)
        y_all = self.labels()
        if n < cfg.num_warmup_sample or not np.isfinite(self.costs).any():
            return None
        if not self.normalized:
            rows = torch.from_numpy(np.concatenate([g.features for g in self.graphs]))
            self.model.set_normalization(rows)
            self.normalized = True
        y = torch.from_numpy(y_all.astype(np.float32))
        groups = torch.tensor(self.groups, dtype=torch.int64)
        gen = torch.Generator().manual_seed(cfg.seed * 1000003 + self.n_fits)
        bs = min(cfg.batch_size, n)
        steps_per_epoch = max(1, n // bs)
        total = min(cfg.max_steps, cfg.max_epochs * steps_per_epoch)
        self.model.train()
        start = time.perf_counter()
        losses = train_steps(self.model, self.optimizer, self._training_loss(),
                             self._batches(y, groups, gen, bs, steps_per_epoch), total,
                             cfg.max_update_seconds)
        if len(losses) < total:
            logger.warning("update stopped after %d of %d steps at max_update_seconds=%.1f",
                           len(losses), total, cfg.max_update_seconds)
        self.model.eval()
        self.n_fits += 1
        step = len(losses)
        stats = FitStats(step, step / steps_per_epoch, time.perf_counter() - start,
                         losses[0], float(np.mean(losses[-max(1, steps_per_epoch):])), n)
        logger.debug("fit: %s", stats)
        return stats

    def _batches(self, y: torch.Tensor, groups: torch.Tensor, gen: torch.Generator, bs: int,
                 steps_per_epoch: int) -> Iterator[Tuple[GraphBatch, torch.Tensor, torch.Tensor]]:
        """Epochs of random batches of ``bs`` records of the history, without end."""
        n = len(self.graphs)
        while True:
            perm = torch.randperm(n, generator=gen)
            for b in range(steps_per_epoch):
                idx = perm[b * bs:(b + 1) * bs]
                yield batch_graphs([self.graphs[i] for i in idx.tolist()]), y[idx], groups[idx]

    def loss_on(self, graphs: Sequence[ProgramGraph], y: np.ndarray, groups: np.ndarray) -> float:
        """The training loss of the current model on a fixed set, without gradients."""
        with torch.inference_mode():
            r = self.model(batch_graphs(list(graphs)))
            return float(self.loss_fn(r, torch.as_tensor(y, dtype=torch.float32),
                                      torch.as_tensor(groups, dtype=torch.int64)))

    # ---------------------------------------------------------------- scoring
    def predict(self, graphs: Sequence[ProgramGraph], task: Optional[str] = None) -> np.ndarray:
        """Positive scores, higher is faster; ``-inf`` for invalid graphs.

        Before the first fit, scores are a deterministic hash of each graph's
        features (uniform in (0, 1)): random exploration, yet the same state
        always gets the same score.

        Exploration: while ``task`` has fewer than ``explore_records`` valid
        measurements of its own, the model only knows it through other tasks
        and can be confidently wrong about a whole family of programs. Its
        scores are then multiplied by ``exp(sigma * z)``, ``z`` a hash of the
        graph and the model version (unit variance), ``sigma`` fading linearly
        from ``explore_sigma`` to 0 as the task's records come in. Programs the
        model rates within a few times of the best get a chance; programs it
        rates far worse stay out.
        """
        out = np.full(len(graphs), -np.inf)
        valid = [i for i, g in enumerate(graphs) if g.valid and g.num_nodes]
        if not valid:
            return out
        if not self.ready:
            out[valid] = [_hash_score(graphs[i], self.config.seed) for i in valid]
            return out
        out[valid] = score_graphs(self.model, [graphs[i] for i in valid], self.log_throughput)
        sigma = self.exploration(task)
        if sigma > 0:
            salt = self.config.seed * 7919 + self.n_fits
            u = np.array([_hash_score(graphs[i], salt) for i in valid])
            out[valid] *= np.exp(sigma * math.sqrt(3.0) * (2.0 * u - 1.0))
        return out

    def exploration(self, task: Optional[str]) -> float:
        """Log-scale score noise for ``task`` now (0 once it has enough records)."""
        cfg = self.config
        if task is None or cfg.explore_records == 0:
            return 0.0
        seen = self.task_valid.get(task, 0)
        return cfg.explore_sigma * max(0.0, 1.0 - seen / cfg.explore_records)

    # ---------------------------------------------------------------- persistence
    def state(self) -> dict:
        """Weights, learned normalization and per-task record counts (exploration), for saving."""
        return {"model": self.model.state_dict(), "normalized": self.normalized,
                "n_fits": self.n_fits, "task_valid": dict(self.task_valid)}

    def load_state(self, state: dict) -> None:
        """Restore what :meth:`state` returned."""
        self.model.load_state_dict(state["model"])
        self.normalized = bool(state["normalized"])
        self.n_fits = int(state["n_fits"])
        self.task_valid = {str(k): int(v) for k, v in state.get("task_valid", {}).items()}
        self.model.eval()
        self._set_anchor()


def score_graphs(model: ProgramGNN, graphs: Sequence[ProgramGraph],
                 log_throughput: bool = False) -> np.ndarray:
    """Positive scores of valid, non-empty ``graphs``, in batches, without gradients
    (``exp`` of the raw score for a model trained on log throughput)."""
    out = np.zeros(len(graphs))
    with torch.inference_mode():
        for s in range(0, len(graphs), _PREDICT_CHUNK):
            r = model(batch_graphs(graphs[s:s + _PREDICT_CHUNK]))
            out[s:s + _PREDICT_CHUNK] = score_from_raw(r.double(), log_throughput).numpy()
    return out


def _hash_score(g: ProgramGraph, seed: int) -> float:
    h = zlib.crc32(g.features.tobytes(), zlib.crc32(g.src.tobytes(), seed & 0xFFFFFFFF))
    return (h + 0.5) / 2.0**32
