"""tvm-gnn-cost: a graph neural network cost model for TVM's auto-scheduler (Ansor) and
MetaSchedule.

Rooms: :mod:`.core` (the GNN, TVM-free), :mod:`.ansor` and :mod:`.metaschedule` (one adapter
per TVM search), :mod:`.tir` (reading TVM's IR for both), :mod:`.offline` (pretraining and
evaluation on logs), :mod:`.workloads` (networks, operators, targets, builds), :mod:`.cli`,
:mod:`.curves` and :mod:`.signals`.

>>> from tvm_gnn_cost import GNNCostModel
>>> model = GNNCostModel(seed=0)  # doctest: +SKIP
>>> policy = auto_scheduler.SketchPolicy(task, program_cost_model=model)  # doctest: +SKIP
"""
from .core.config import FeaturizerConfig, ModelConfig, PretrainConfig, TrainerConfig
from .core.graph import ProgramGraph

__version__ = "0.1.0"


def __getattr__(name):
    # The adapters import TVM (each its own part of it); load them only when asked.
    if name in ("GNNCostModel", "StateFeaturizer"):
        from . import ansor

        return getattr(ansor, name)
    if name == "GNNMetaCostModel":
        from .metaschedule import GNNMetaCostModel

        return GNNMetaCostModel
    raise AttributeError(f"module 'tvm_gnn_cost' has no attribute {name!r}")


__all__ = ["GNNCostModel", "GNNMetaCostModel", "StateFeaturizer", "ProgramGraph",
           "FeaturizerConfig", "ModelConfig", "TrainerConfig", "PretrainConfig", "__version__"]
