"""The GNN cost model without TVM: program graphs, the network, its losses, labels and metrics,
online training, the pretrained prior and checkpoints.

Nothing here imports TVM: the adapters in :mod:`tvm_gnn_cost.ansor` and
:mod:`tvm_gnn_cost.metaschedule` turn each search's programs into :class:`ProgramGraph` s
and hand them to an :class:`OnlineTrainer`. Importing this package loads numpy only; torch
and DGL come with the modules that need them.
"""
from .config import FeaturizerConfig, ModelConfig, PretrainConfig, TrainerConfig
from .graph import ProgramGraph
from .labels import FAILED_COST


def __getattr__(name):
    if name == "OnlineTrainer":
        from .trainer import OnlineTrainer

        return OnlineTrainer
    if name == "ProgramGNN":
        from .model import ProgramGNN

        return ProgramGNN
    raise AttributeError(f"module 'tvm_gnn_cost.core' has no attribute {name!r}")


__all__ = ["FAILED_COST", "FeaturizerConfig", "ModelConfig", "OnlineTrainer", "PretrainConfig",
           "ProgramGNN", "ProgramGraph", "TrainerConfig"]
