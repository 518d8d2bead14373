"""The GNN in Ansor (``tvm.auto_scheduler``): states as graphs, :class:`GNNCostModel` for
``SketchPolicy``, logs and records, random sampling, datasets, and tuning through
``TaskScheduler``. Needs TVM 0.19 (the pinned stack)."""
from .cost_model import GNNCostModel
from .featurizer import StateFeaturizer

__all__ = ["GNNCostModel", "StateFeaturizer"]
