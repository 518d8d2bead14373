"""The GNN in MetaSchedule: scheduled TIR as graphs, :class:`GNNMetaCostModel`, tuning and a
builder, on TVM 0.19 and on apache-tvm 0.27.

MetaSchedule's builder processes import :mod:`.builder` alone, so this package imports
nothing on its own (no torch, no DGL).
"""


def __getattr__(name):
    if name == "GNNMetaCostModel":
        from .cost_model import GNNMetaCostModel

        return GNNMetaCostModel
    raise AttributeError(f"module 'tvm_gnn_cost.metaschedule' has no attribute {name!r}")


__all__ = ["GNNMetaCostModel"]
