"""``GNNMetaCostModel``: the same GNN and trainer as a MetaSchedule cost model.

    from tvm import meta_schedule as ms          # TVM 0.19
    model = GNNMetaCostModel()
    ms.tune_tir(mod, target, work_dir, max_trials_global=64, cost_model=model)

Measured candidates become block graphs (:mod:`.tirgraph`, the Ansor
featurizer's node schema), the :class:`OnlineTrainer` keeps the history and
fine-tunes after every measured batch, and candidates are scored in batches.
Checkpoints are the Ansor adapter's: a model pretrained on Ansor logs loads
here and the other way round.
"""
from __future__ import annotations

import logging
import math
from collections import OrderedDict
from typing import List, Optional

import numpy as np

from ..core.checkpoint import Checkpointed, load_checkpoint
from ..core.config import FeaturizerConfig, ModelConfig, TrainerConfig, resolve_trainer_config
from ..core.features import feature_names
from ..core.labels import FAILED_COST, clean_costs
from ..core.prior import PRIOR_RECORDS, prior_weight
from ..core.trainer import OnlineTrainer
from ..tir.compat import structural_hash
from .tirgraph import featurize_module

try:  # apache-tvm >= 0.25 keeps MetaSchedule under tvm.s_tir
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms
except ImportError:  # TVM 0.19 (the project's pinned stack)
    from tvm import meta_schedule as ms
    from tvm.meta_schedule.utils import derived_object

logger = logging.getLogger("tvm_gnn_cost")

_CACHE_SIZE = 50_000  # graphs of scored modules kept (about 1.5 KB each)


def run_cost(result) -> float:
    """Mean seconds of a ``RunnerResult``; ``FAILED_COST`` if it failed."""
    secs = [float(x) for x in (result.run_secs or [])]
    if result.error_msg is not None or not secs:
        return FAILED_COST
    cost = float(clean_costs([np.mean(secs)])[0])
    return cost if math.isfinite(cost) else FAILED_COST


def context_key(context) -> str:
    """Identifies a tuning task: the structural hash of its module, and its target."""
    return f"{structural_hash(context.mod)}|{context.target}"


@derived_object
class GNNMetaCostModel(ms.cost_model.PyCostModel, Checkpointed):
    """Graph neural network cost model for MetaSchedule (``cost_model=`` of ``tune_tir``,
    ``tune_tasks`` and the Relay/Relax integrations).

    Checkpoints (:meth:`save`, :meth:`load`) are ``GNNCostModel``'s: a model pretrained on
    Ansor logs loads here and the other way round.

    Parameters
    ----------
    seed : int, optional
        Seeds weights, batching and pre-warm-up scores (``trainer_config.seed`` if not given).
    model_config, trainer_config, featurizer_config : optional
        See :mod:`tvm_gnn_cost.core.config`; the same settings as ``GNNCostModel``.
    prior : str, optional
        A checkpoint kept frozen as a prior beside the online GNN (:meth:`load_prior`).
    prior_records : float
        A task's own valid records at which the prior and the online GNN weigh the same.
    """

    # MetaSchedule's derived_object needs PyCostModel as the first base, whose save and load
    # only raise: take the checkpoint's.
    save = Checkpointed.save
    load = Checkpointed.load

    def __init__(self, seed: Optional[int] = None, model_config: Optional[ModelConfig] = None,
                 trainer_config: Optional[TrainerConfig] = None,
                 featurizer_config: Optional[FeaturizerConfig] = None,
                 prior: Optional[str] = None, prior_records: float = PRIOR_RECORDS):
        super().__init__()
        if prior is not None and featurizer_config is None:
            featurizer_config = load_checkpoint(prior)[3]  # see what the prior was trained on
        self._build(model_config or ModelConfig(), resolve_trainer_config(trainer_config, seed),
                    featurizer_config or FeaturizerConfig())
        self.prior_records = float(prior_records)
        prior_weight(0, self.prior_records)  # refuses a negative setting now, not mid-search
        if prior is not None:
            self.load_prior(prior)

    @classmethod
    def pretrained(cls, target=None, seed: Optional[int] = None,
                   **kwargs) -> "GNNMetaCostModel":
        """The online GNN with the shipped checkpoint (trained on Ansor programs) as a frozen
        prior where ``target`` is a CPU it was trained for, alone elsewhere, as
        ``GNNCostModel.pretrained`` decides."""
        from ..workloads.targets import shipped_prior

        return cls(seed=seed, prior=shipped_prior(target), **kwargs)

    def _build(self, mcfg: ModelConfig, tcfg: TrainerConfig, fcfg: FeaturizerConfig) -> None:
        if fcfg.lowered or fcfg.step_tokens or fcfg.loop_footprints:
            raise ValueError("FeaturizerConfig.lowered (Ansor's per-store features), "
                             "step_tokens (Ansor's transform steps) and loop_footprints (an "
                             "experiment) exist for Ansor states only; use GNNCostModel, or "
                             "leave them off here")
        self.featurizer_config = fcfg
        self.feature_names = feature_names(fcfg)
        self.trainer = OnlineTrainer(len(self.feature_names), mcfg, tcfg)
        self.last_fit = None
        # The evolutionary search scores the same programs again and again (survivors,
        # re-sampled mutants): graphs are kept by the module's structural hash.
        self._graphs: "OrderedDict[int, object]" = OrderedDict()

    def featurize(self, candidates) -> List:
        """Graphs of ``MeasureCandidate`` s (their scheduled modules), cached."""
        out = []
        for c in candidates:
            mod = c.sch.mod
            key = structural_hash(mod)
            g = self._graphs.get(key)
            if g is None:
                g = featurize_module(mod, self.featurizer_config.max_loops)
                self._graphs[key] = g
                if len(self._graphs) > _CACHE_SIZE:
                    self._graphs.popitem(last=False)
            else:
                self._graphs.move_to_end(key)
            out.append(g)
        return out

    def update(self, context, candidates, results) -> None:
        """Add a measured batch to the history and fine-tune."""
        graphs = self.featurize(candidates)
        key = context_key(context)
        self.trainer.add(graphs, [key] * len(graphs), [run_cost(r) for r in results])
        self.last_fit = self.trainer.fit()

    def predict(self, context, candidates) -> np.ndarray:
        """Scores of ``candidates``: positive, higher is faster (0 if one cannot be read)."""
        scores = self.scores(self.featurize(candidates), context_key(context))
        return np.where(np.isfinite(scores), scores, 0.0).astype("float64")


__all__ = ["GNNMetaCostModel", "context_key", "derived_object", "ms", "run_cost"]
