"""The GNN in Ansor (``tvm.auto_scheduler``): states as graphs, :class:`GNNCostModel` for
``SketchPolicy``, logs and records, random sampling, datasets, and tuning through
``TaskScheduler``. Needs TVM 0.19 (the pinned stack); the package itself imports nothing, so
that a TVM without Ansor fails only where Ansor is used."""


def __getattr__(name):
    if name == "GNNCostModel":
        from .cost_model import GNNCostModel

        return GNNCostModel
    if name == "StateFeaturizer":
        from .featurizer import StateFeaturizer

        return StateFeaturizer
    raise AttributeError(f"module 'tvm_gnn_cost.ansor' has no attribute {name!r}")


__all__ = ["GNNCostModel", "StateFeaturizer"]
