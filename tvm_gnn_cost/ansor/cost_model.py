"""``GNNCostModel``: the GNN as an Ansor cost model, a drop-in for ``XGBModel``."""
from __future__ import annotations

import logging
from collections import Counter
from typing import Optional

import numpy as np
from tvm.auto_scheduler.cost_model.cost_model import PythonBasedModel

from ..core.checkpoint import Checkpointed, load_checkpoint
from ..core.config import (FeaturizerConfig, ModelConfig, TrainerConfig,
                           resolve_trainer_config)
from ..core.prior import PRIOR_RECORDS, prior_weight
from ..core.trainer import OnlineTrainer
from .featurizer import StateFeaturizer, task_key
from .logs import read_log
from .records import TaskRebuilder, featurize_measured, group_by_task

logger = logging.getLogger("tvm_gnn_cost")


class GNNCostModel(Checkpointed, PythonBasedModel):
    """Graph neural network cost model for Ansor's ``SketchPolicy``.

    Share one instance across all tasks:
    ``SketchPolicy(task, program_cost_model=model)``. Measured states become
    stage graphs; :meth:`update` adds them to the history and fine-tunes the
    GNN; :meth:`predict` scores candidate states in batches.

    Parameters
    ----------
    seed : int, optional
        Seeds weights, batching and pre-warm-up scores: same seed, same scores
        (``trainer_config.seed`` if not given; giving both, differently, is an error).
    num_warmup_sample : int, optional
        Measured records before the GNN is trained; until then scores are a
        deterministic hash of each state (random exploration, as XGBModel's
        random scores). A shortcut for ``trainer_config.num_warmup_sample``, as ``seed``.
    model_config, trainer_config, featurizer_config : optional
        See :mod:`tvm_gnn_cost.core.config`. With a ``prior`` and no
        ``featurizer_config``, the prior's featurizer settings.
    prior : str, optional
        Checkpoint of a pretrained GNN (``tvm-gnn-cost pretrain``) to keep frozen as a
        prior, see :meth:`load_prior`.
    prior_records : float
        A task's own valid records at which the prior and the online GNN weigh the same
        (:data:`tvm_gnn_cost.core.prior.PRIOR_RECORDS` by default).
    """

    def __init__(self, seed: Optional[int] = None, num_warmup_sample: Optional[int] = None,
                 model_config: Optional[ModelConfig] = None,
                 trainer_config: Optional[TrainerConfig] = None,
                 featurizer_config: Optional[FeaturizerConfig] = None,
                 prior: Optional[str] = None, prior_records: float = PRIOR_RECORDS):
        super().__init__()
        if prior is not None and featurizer_config is None:
            featurizer_config = load_checkpoint(prior)[3]  # see what the prior was trained on
        self._build(model_config or ModelConfig(),
                    resolve_trainer_config(trainer_config, seed, num_warmup_sample),
                    featurizer_config or FeaturizerConfig())
        self.rebuilder = TaskRebuilder()
        self.prior_records = float(prior_records)
        prior_weight(0, self.prior_records)  # refuses a negative setting now, not mid-search
        if prior is not None:
            self.load_prior(prior)

    @classmethod
    def pretrained(cls, target=None, seed: Optional[int] = None, **kwargs) -> "GNNCostModel":
        """The default model: an online GNN with the shipped checkpoint as a frozen prior,
        when ``target`` (default: this CPU) is a CPU of the kind it was trained for
        (:func:`~tvm_gnn_cost.workloads.targets.shipped_prior_mismatch` says which); the
        online GNN alone elsewhere, with a log line that says why.

        Parameters
        ----------
        target : str or tvm.target.Target, optional
            Where the programs will run.
        seed : int, optional
            As for :class:`GNNCostModel`; other keyword arguments too.
        """
        from ..workloads.targets import shipped_prior

        return cls(seed=seed, prior=shipped_prior(target), **kwargs)

    def _build(self, mcfg: ModelConfig, tcfg: TrainerConfig, fcfg: FeaturizerConfig) -> None:
        self.featurizer = StateFeaturizer(fcfg)
        self.featurizer_config = fcfg
        self.feature_names = self.featurizer.names
        self.n_store_features = self.featurizer.n_store_features
        self.trainer = OnlineTrainer(self.featurizer.n_features, mcfg, tcfg,
                                     self.featurizer.n_store_features)
        self.last_fit = None
        self.last_skipped: Counter = Counter()  # records of the last update that were not used

    @property
    def records_seen(self) -> int:
        """Measure records passed to :meth:`update` (and from files) so far."""
        return self.trainer.n_seen

    def update(self, inputs, results) -> None:
        """Add the latest round of measurements and fine-tune.

        Parameters
        ----------
        inputs : list of MeasureInput
        results : list of MeasureResult
            Failed measurements (``error_no != 0``) count as the worst programs
            of their task.
        """
        for group in group_by_task(inputs, results, self.rebuilder):
            graphs = self.featurize_measured(group.task, group.states)
            self.trainer.add(graphs, [task_key(group.task)] * len(graphs), group.costs)
        self.last_skipped = Counter(self.rebuilder.skipped)
        self.trainer.n_seen += sum(self.last_skipped.values())
        self.rebuilder.skipped.clear()
        self.last_fit = self.trainer.fit()

    def featurize_measured(self, task, states) -> list:
        """Graphs of measured states, from the search or read from a log
        (:func:`~tvm_gnn_cost.ansor.records.featurize_measured`)."""
        return featurize_measured(self.featurizer, task, states)

    def predict(self, task, states) -> np.ndarray:
        """Scores of ``states``: positive, higher is faster, ``-inf`` if a state cannot be read.

        Parameters
        ----------
        task : SearchTask
        states : list of State
            Bound-inferred states, as the search passes them.

        Returns
        -------
        np.ndarray
            ``len(states)`` scores.
        """
        return self.scores(self.featurizer.featurize(task, states), task_key(task))

    def predict_stages(self, task, states):
        """Not used by Ansor's search; per-stage scores are not offered."""
        raise NotImplementedError("GNNCostModel scores whole programs; predict_stages is not supported")

    def update_from_file(self, file_name: str, n_lines: Optional[int] = None,
                         target: Optional[str] = None) -> int:
        """Train on the records of an Ansor log; returns how many were used.

        Lines that cannot be read (a truncated last line, garbage), records of
        another ``target`` (if given) and of workloads that are not registered
        are skipped, with a warning that counts them by reason.

        Raises
        ------
        ValueError
            If no record of the log can be used: training on nothing would
            silently leave the model untrained.
        """
        inputs, results, report = read_log(file_name, n_lines, target)
        self.update(inputs, results)
        report.skipped.update(self.last_skipped)
        report.used -= sum(self.last_skipped.values())
        if self.last_skipped:
            logger.warning("reading %s", report.describe())
        logger.info("GNNCostModel: trained on %s", report.describe())
        if report.used <= 0:
            raise ValueError(f"no usable measurement record in {report.describe()}. Register "
                             "the workloads (import their module or run extract_tasks) and "
                             "check the log's target.")
        return report.used

    def save(self, file_name: str) -> None:
        """Write weights, configuration and feature schema; atomic (old file kept on a crash).

        With a prior, this saves the online GNN; the prior stays in its own file.
        """
        super().save(file_name)

