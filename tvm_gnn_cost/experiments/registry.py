"""Cost models by name: the one list that ``tune``, ``compare`` and ``collect`` take names from.

Each entry says what a model is; :func:`choose` decides, once for a target, which
checkpoints an Ansor model uses (whether the shipped prior fits is asked here and nowhere
else), and the :class:`Choice` it returns makes the model, says how many programs its first
round of each task measures, and gives the ``tune`` flags that make it in a child process.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..core.prior import PRIOR_RECORDS, first_round_size


@dataclass(frozen=True)
class ModelSpec:
    """A cost model of one search, by name."""

    name: str
    help: str
    checkpoint: str = ""  # "prior" / "pretrained": what it does with the checkpoint it needs


ANSOR_MODELS: Dict[str, ModelSpec] = {m.name: m for m in (
    ModelSpec("gnn", "the default model: the online GNN, with the shipped checkpoint as a "
                     "frozen prior where the target fits it"),
    ModelSpec("gnn-online", "the online GNN alone, without a prior"),
    ModelSpec("gnn-prior", "the online GNN with a given checkpoint as a frozen prior", "prior"),
    ModelSpec("gnn-pretrained", "the GNN started from a given checkpoint and fine-tuned",
              "pretrained"),
    ModelSpec("xgb", "stock Ansor: XGBModel as TaskScheduler builds it (warm-up of one round "
                     "of every task)"),
    ModelSpec("xgb-w16", "XGBModel with the GNN's 16-record warm-up"),
    ModelSpec("random", "Ansor's RandomModel: random search, the floor"),
)}

METASCHEDULE_MODELS: Dict[str, ModelSpec] = {m.name: m for m in (
    ModelSpec("gnn", "the default model: GNNMetaCostModel, the online GNN with the shipped "
                     "checkpoint (trained on Ansor programs) as a frozen prior where the "
                     "target fits it"),
    ModelSpec("gnn-online", "GNNMetaCostModel, the online GNN alone, without a prior"),
    ModelSpec("xgb", "MetaSchedule's own XGBoost model, as tune_tasks builds it"),
    ModelSpec("mlp", "MetaSchedule's own MLP model"),
    ModelSpec("random", "MetaSchedule's random model"),
)}

SEARCHERS = {"ansor": ANSOR_MODELS, "metaschedule": METASCHEDULE_MODELS}


def model_names(searcher: str = "ansor") -> Tuple[str, ...]:
    """The names of ``searcher``'s models, in the registry's order."""
    return tuple(SEARCHERS[searcher])


def describe_models(searcher: str = "ansor") -> str:
    """``name (help), ...``: what a ``--model(s)`` flag's help lists."""
    return ", ".join(f"{m.name} ({m.help})" for m in SEARCHERS[searcher].values())


def parse_models(text: str, searcher: str = "ansor") -> List[str]:
    """Comma-separated model names, each checked against the registry.

    Raises
    ------
    ValueError
        Naming the models ``searcher`` takes.
    """
    names = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in names if m not in SEARCHERS[searcher]]
    if unknown or not names:
        raise ValueError(f"{searcher} takes the models {', '.join(model_names(searcher))}; "
                         f"got {text!r}")
    return names


@dataclass(frozen=True)
class Choice:
    """An Ansor model as it will run for one target: its name and the checkpoints it uses."""

    name: str
    prior: Optional[str] = None  # checkpoint kept frozen beside the online GNN
    pretrained: Optional[str] = None  # checkpoint the GNN starts from and fine-tunes

    def first_round(self, measures_per_round: int) -> int:
        """Programs in each task's first round: shorter with a prior (it ranks a task's first
        programs without its records), a full round otherwise."""
        return first_round_size(self.prior is not None, measures_per_round)

    def tune_flags(self) -> List[str]:
        """The ``tune`` flags that make this model in a child process (the checkpoints
        decided here, not again there)."""
        if self.name in ("xgb", "xgb-w16", "random"):
            return ["--model", self.name]
        if self.pretrained:
            return ["--model", "gnn", "--pretrained", self.pretrained]
        if self.prior:
            return ["--model", "gnn", "--prior", self.prior]
        return ["--model", "gnn", "--no-prior"]

    def make(self, seed: int = 0, tasks: Sequence = (), trials: int = 0,
             measures_per_round: int = 16, prior_records: float = PRIOR_RECORDS):
        """The cost model, for tuning ``trials`` measurements of ``tasks``.

        ``xgb`` is Ansor's ``XGBModel`` exactly as ``TaskScheduler`` builds it for
        ``sketch.xgb``: a warm-up of one round of every task (``len(tasks) x measures per
        round``, the round cut to ``trials // len(tasks)`` as TaskScheduler cuts it).
        """
        from tvm import auto_scheduler

        if self.name == "xgb":
            if not len(tasks) or trials <= 0:
                raise ValueError("the stock xgb model needs the tasks and the trial budget "
                                 "(its warm-up is one round of every task)")
            return auto_scheduler.XGBModel(seed=seed,
                                           num_warmup_sample=stock_warmup(len(tasks), trials,
                                                                          measures_per_round))
        if self.name == "xgb-w16":
            from ..core.config import TrainerConfig

            return auto_scheduler.XGBModel(seed=seed,
                                           num_warmup_sample=TrainerConfig().num_warmup_sample)
        if self.name == "random":
            return auto_scheduler.RandomModel()
        from ..ansor.cost_model import GNNCostModel

        if self.pretrained:
            model = GNNCostModel(seed=seed)
            model.load(self.pretrained)
            return model
        return GNNCostModel(seed=seed, prior=self.prior, prior_records=prior_records)


def stock_warmup(n_tasks: int, trials: int, measures_per_round: int) -> int:
    """Records before stock ``XGBModel`` is trained, as ``TaskScheduler`` sets it for
    ``sketch.xgb``: one round of every task, the round cut to ``trials // n_tasks``."""
    return n_tasks * min(measures_per_round, max(1, trials // max(1, n_tasks)))


def choose(name: str, target=None, checkpoint: Optional[str] = None) -> Choice:
    """The Ansor model ``name`` for ``target``, its checkpoints decided: ``gnn`` takes the
    shipped prior where it fits the target (a warning says why not elsewhere);
    ``gnn-prior`` and ``gnn-pretrained`` take ``checkpoint``.

    Raises
    ------
    ValueError
        For an unknown name, a model that needs a checkpoint without one, or a checkpoint
        given to a model that takes none.
    """
    spec = ANSOR_MODELS.get(name)
    if spec is None:
        raise ValueError(f"unknown cost model {name!r}; use one of "
                         f"{', '.join(model_names())}")
    if spec.checkpoint and not checkpoint:
        raise ValueError(f"{name} needs a checkpoint (written by `tvm-gnn-cost pretrain`)")
    if checkpoint and not spec.checkpoint:
        raise ValueError(f"a checkpoint is for gnn-prior or gnn-pretrained, not {name}")
    if name == "gnn":
        from ..workloads.targets import shipped_prior

        return Choice(name, prior=shipped_prior(target))
    return Choice(name, **({spec.checkpoint: checkpoint} if checkpoint else {}))


def from_tune_flags(model: str, prior: Optional[str], no_prior: bool,
                    pretrained: Optional[str]) -> Tuple[str, Optional[str]]:
    """``tune``'s ``--model``, ``--prior``, ``--no-prior`` and ``--pretrained`` as a registry
    name and its checkpoint.

    Raises
    ------
    ValueError
        For flags that contradict each other.
    """
    given = [flag for flag, on in (("--prior", prior), ("--no-prior", no_prior),
                                   ("--pretrained", pretrained)) if on]
    if len(given) > 1:
        raise ValueError(f"{' and '.join(given)} contradict each other: --prior keeps a "
                         "checkpoint frozen beside an online GNN, --pretrained fine-tunes one, "
                         "--no-prior uses neither; pass one")
    if given and model != "gnn":
        raise ValueError(f"{given[0]} needs --model gnn")
    if prior:
        return "gnn-prior", prior
    if pretrained:
        return "gnn-pretrained", pretrained
    return ("gnn-online", None) if no_prior else (model, None)


def make_ms_model(name: str, seed: int = 0, target=None):
    """A MetaSchedule cost model of :data:`METASCHEDULE_MODELS`, for ``target`` (default:
    this CPU), which decides whether ``gnn`` has the shipped prior (a warning says why not
    where it does not fit)."""
    if name not in METASCHEDULE_MODELS:
        raise ValueError(f"unknown MetaSchedule model {name!r}; use one of "
                         f"{', '.join(model_names('metaschedule'))}")
    from ..metaschedule.cost_model import GNNMetaCostModel, ms

    if name == "gnn":
        return GNNMetaCostModel.pretrained(target, seed=seed)
    if name == "gnn-online":
        return GNNMetaCostModel(seed=seed)
    kwargs = {"seed": seed} if name == "random" else {}
    return ms.cost_model.CostModel.create(name, **kwargs)


__all__ = ["ANSOR_MODELS", "METASCHEDULE_MODELS", "Choice", "ModelSpec", "choose",
           "describe_models", "from_tune_flags", "make_ms_model", "model_names",
           "parse_models", "stock_warmup"]
