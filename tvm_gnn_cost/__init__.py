"""tvm-gnn-cost: a graph neural network cost model for TVM's auto-scheduler (Ansor).

>>> from tvm_gnn_cost import GNNCostModel
>>> model = GNNCostModel(seed=0)  # doctest: +SKIP
>>> policy = auto_scheduler.SketchPolicy(task, program_cost_model=model)  # doctest: +SKIP
"""
import os

os.environ.setdefault("DGLBACKEND", "pytorch")
os.environ.setdefault("TOPHUB_LOCATION", "NONE")

from .config import FeaturizerConfig, ModelConfig, PretrainConfig, TrainerConfig  # noqa: E402
from .graph import ProgramGraph  # noqa: E402

__version__ = "0.1.0"


def __getattr__(name):
    # GNNCostModel and the featurizer import TVM; load them only when asked.
    if name == "GNNCostModel":
        from .adapter import GNNCostModel

        return GNNCostModel
    if name == "StateFeaturizer":
        from .featurizer import StateFeaturizer

        return StateFeaturizer
    raise AttributeError(f"module 'tvm_gnn_cost' has no attribute {name!r}")


__all__ = ["GNNCostModel", "StateFeaturizer", "ProgramGraph", "FeaturizerConfig", "ModelConfig",
           "TrainerConfig", "PretrainConfig", "__version__"]
