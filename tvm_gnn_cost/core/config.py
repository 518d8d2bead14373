"""Configuration of the featurizer, the GNN and its trainer, as plain dataclasses.

Every setting has a default that just runs; pass a changed copy to override,
for example ``TrainerConfig(loss="pairwise", max_epochs=50)``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Dict, Optional, Type, TypeVar

T = TypeVar("T")

LOSSES = ("pairwise", "mse", "pairwise+mse", "wpairwise+mse", "lambdarank", "pairwise+logmse",
          "listmle+mse")
READOUTS = ("sum-max", "attention")


@dataclass
class FeaturizerConfig:
    """How a scheduled program becomes a graph."""

    max_loops: int = 8  # own loops encoded one by one, innermost first
    max_structures_per_task: int = 256  # cached stage structures kept per task
    # Also Ansor's own per-store features of the lowered program (what XGBModel sees: strides,
    # reuse, bytes and cache lines of each buffer access), one row per buffer store. Costs a
    # lowering per state; an experiment of issue 21 (benchmarks/results/representation.md).
    lowered: bool = False
    # Also the schedule's first ``step_tokens`` transform steps of each stage as tokens in its
    # node (TLP's insight inside the graph, core/steps.py); 0: none. An experiment of issue 21.
    step_tokens: int = 0
    # Also, for each of the first ``max_loops`` own loops of a stage (innermost first), how many
    # elements its accesses touch inside that loop: the working set at each tile level. An
    # experiment of issue 21 (benchmarks/results/representation.md).
    loop_footprints: bool = False


@dataclass
class ModelConfig:
    """Shape of the GNN."""

    hidden: int = 64  # width of node embeddings
    layers: int = 3  # graph convolutions along the data flow, each with a residual
    readout_hidden: int = 64  # width of the MLP after the readout
    dropout: float = 0.0
    # How node embeddings become one program embedding: their sum and maximum, or those and
    # an attention-weighted sum (a learned gate per node, softmax over the program's nodes).
    readout: str = "sum-max"
    # Gaussian noise added to the standardized node features while training (0: none): blurs
    # the exact sizes that identify a training task. An experiment of issue 21.
    input_noise: float = 0.0


@dataclass
class TrainerConfig:
    """Online training: labels, loss, and how much work one ``update`` may do."""

    loss: str = "pairwise+mse"  # one of LOSSES; compared in benchmarks/bench_predict.py
    lr: float = 2e-3
    weight_decay: float = 1e-5
    batch_size: int = 256  # graphs per step
    max_epochs: int = 40  # passes over the history per update, at most
    max_steps: int = 200  # optimizer steps per update, at most
    max_update_seconds: float = 6.0  # wall-clock cap of one update's training
    num_warmup_sample: int = 16  # measured records before the model is trusted
    max_history: int = 200_000  # records kept for training; the oldest go first
    pairs_per_graph: int = 8  # sampled same-task pairs per graph for ranking losses
    explore_records: int = 8  # a task with fewer valid records of its own gets noisy scores
    explore_sigma: float = 1.0  # log-scale noise on such a task's scores, fading as records come
    # Fine-tuning adopted weights: the loss gains anchor x the squared distance of the weights
    # from the adopted ones (L2-SP, Li et al. 2018), so that a few records of a new job cannot
    # pull the model far from what pretraining learned (0: off).
    anchor: float = 0.0
    seed: int = 0


@dataclass
class PretrainConfig:
    """Offline training on logs (``tvm-gnn-cost pretrain``): how long, and the validation split."""

    epochs: int = 200
    patience: int = 20  # epochs without a better validation accuracy before stopping
    val_fraction: float = 0.2  # share of tasks held out for validation (whole tasks)
    seed: int = 0
    shard_size: int = 4096  # records per shard file of featurized records
    mix: int = 4  # shards loaded and shuffled together: memory holds mix x shard_size records
    # Programs of one task kept together in a training batch, so that the ranking loss sees
    # many same-task pairs (0: batches drawn at random; benchmarks/RESULTS.md compares them).
    per_task: int = 32
    # Online fine-tuning of the pretrained model when it tunes a new network: from this many
    # measured records on, at this learning rate. Fine-tuning on a few records per task erases
    # what pretraining learned (benchmarks/bench_finetune.py: pairwise accuracy on the tasks
    # not measured yet 0.776 without fine-tuning, 0.760 at lr 1e-4, 0.626 at 2e-3).
    finetune_after: int = 256
    finetune_lr: float = 1e-4
    finetune_anchor: float = 0.0  # TrainerConfig.anchor while fine-tuning (0: off)
    # The weights kept are the mean of the last ``average_epochs`` epochs' weights (1: the
    # epoch's own), validated and kept as the epoch's; an experiment of issue 21.
    average_epochs: int = 1


@dataclass
class PretrainRecipe:
    """Everything ``tvm-gnn-cost pretrain`` trains with; the defaults are the recipe of the
    shipped checkpoint ``tvm_gnn_cost/checkpoints/gnn-cpu.pt`` (wider than the online GNN, with dropout and weight
    decay: it learns from thousands of programs, not from one job's few hundred).

    The command line overrides only the fields a user names; the checkpoint and the results
    JSON keep the whole recipe.
    """

    model: ModelConfig = field(
        default_factory=lambda: ModelConfig(hidden=128, readout_hidden=128, dropout=0.2))
    trainer: TrainerConfig = field(default_factory=lambda: TrainerConfig(weight_decay=1e-3))
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    featurizer: FeaturizerConfig = field(default_factory=FeaturizerConfig)

    def with_seed(self, seed: int) -> "PretrainRecipe":
        """The recipe with ``seed`` for the weights (trainer) and the split and batches
        (pretrain)."""
        return replace(self, trainer=replace(self.trainer, seed=seed),
                       pretrain=replace(self.pretrain, seed=seed))


def resolve_trainer_config(config: Optional[TrainerConfig], seed: Optional[int] = None,
                           num_warmup_sample: Optional[int] = None) -> TrainerConfig:
    """``config`` (default :class:`TrainerConfig`) with the adapters' shortcut arguments.

    ``seed`` and ``num_warmup_sample`` may be given as arguments (as ``XGBModel`` takes them)
    or in ``config``, not both with different values: a silent override hides which one won.
    """
    given = {k: v for k, v in (("seed", seed), ("num_warmup_sample", num_warmup_sample))
             if v is not None}
    if config is None:
        return replace(TrainerConfig(), **given)
    clash = {k: (v, getattr(config, k)) for k, v in given.items() if getattr(config, k) != v}
    if clash:
        raise ValueError(", ".join(f"{k}={a} contradicts trainer_config.{k}={b}"
                                   for k, (a, b) in clash.items())
                         + "; set it in one place (the argument or the TrainerConfig)")
    return config


def config_to_dict(cfg: Any) -> Dict[str, Any]:
    """A JSON-friendly copy of a config dataclass."""
    return asdict(cfg)


def config_from_dict(cls: Type[T], data: Dict[str, Any]) -> T:
    """Rebuild a config (nested ones too, as in :class:`PretrainRecipe`), refusing unknown keys
    with a clear message."""
    known = {f.name: f for f in fields(cls)}
    unknown = set(data) - set(known)
    if unknown:
        raise ValueError(
            f"unknown {cls.__name__} settings {sorted(unknown)}; known: {sorted(known)}. "
            "Was the file written by a newer tvm_gnn_cost?"
        )
    nested = {"model": ModelConfig, "trainer": TrainerConfig, "pretrain": PretrainConfig,
              "featurizer": FeaturizerConfig}
    if cls is PretrainRecipe:
        data = {k: config_from_dict(nested[k], v) for k, v in data.items()}
    return cls(**data)


def check_trainer_config(cfg: TrainerConfig) -> None:
    """Raise ``ValueError`` on a setting that cannot work."""
    if cfg.loss not in LOSSES:
        raise ValueError(f"TrainerConfig.loss={cfg.loss!r} is unknown; use one of {LOSSES}")
    if cfg.batch_size < 2 or cfg.max_steps < 1 or cfg.max_epochs < 1:
        raise ValueError("TrainerConfig needs batch_size >= 2, max_steps >= 1, max_epochs >= 1")
    if cfg.explore_records < 0 or cfg.explore_sigma < 0:
        raise ValueError("TrainerConfig.explore_records and explore_sigma must be >= 0 "
                         "(0 turns exploration off)")
    if cfg.lr <= 0:
        raise ValueError(f"TrainerConfig.lr must be positive, got {cfg.lr}")
    if cfg.anchor < 0:
        raise ValueError(f"TrainerConfig.anchor must be >= 0 (0 turns it off), got {cfg.anchor}")


__all__ = [
    "LOSSES",
    "READOUTS",
    "FeaturizerConfig",
    "ModelConfig",
    "TrainerConfig",
    "PretrainConfig",
    "PretrainRecipe",
    "config_to_dict",
    "config_from_dict",
    "check_trainer_config",
    "resolve_trainer_config",
]
