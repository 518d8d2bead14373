"""A scheduled program as a graph of stages, independent of TVM.

:class:`ProgramGraph` holds plain numpy arrays so that graphs can be built,
cached, saved and tested without TVM; :func:`batch_graphs` turns a list of
them into one DGL graph for the GNN.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np


@dataclass
class ProgramGraph:
    """Stages of one scheduled program and the data flow between them.

    Attributes
    ----------
    features : np.ndarray
        ``(n_nodes, n_features)`` float32, one row per non-inlined compute stage.
    src, dst : np.ndarray
        int64 edge lists, producer -> consumer, as node indices.
    valid : bool
        False if the state could not be featurized (it failed to lower, or
        breaks the target's limits); such a graph has no nodes.
    stores : np.ndarray or None
        ``(n_stores, n_store_features)`` float32: Ansor's per-store features of the
        lowered program (``FeaturizerConfig.lowered``), else None.
    """

    features: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    valid: bool = True
    stores: Optional[np.ndarray] = None

    @property
    def num_nodes(self) -> int:
        return int(self.features.shape[0])

    @staticmethod
    def invalid(n_features: int) -> "ProgramGraph":
        """An empty graph that marks a state which failed to featurize."""
        empty = np.zeros(0, dtype=np.int64)
        return ProgramGraph(np.zeros((0, n_features), np.float32), empty, empty, valid=False)


@dataclass
class GraphBatch:
    """Several graphs as one disjoint union, ready for the GNN."""

    graph: "object"  # dgl.DGLGraph, producer -> consumer
    reverse: "object"  # the same graph, consumer -> producer
    features: "object"  # torch.Tensor (total_nodes, n_features)
    graph_ids: "object"  # torch.LongTensor (total_nodes,): which graph each node is in
    num_graphs: int
    stores: "object" = None  # torch.Tensor (total_stores, n_store_features), if featurized
    store_ids: "object" = None  # torch.LongTensor (total_stores,): which graph each is in


def batch_graphs(graphs: Sequence[ProgramGraph]) -> GraphBatch:
    """Concatenate graphs into one DGL graph without per-graph DGL calls.

    Parameters
    ----------
    graphs : sequence of ProgramGraph
        Valid graphs with at least one node each.

    Returns
    -------
    GraphBatch
    """
    import torch

    from ._dgl import dgl

    if not graphs:
        raise ValueError("batch_graphs needs at least one graph")
    sizes = np.fromiter((g.num_nodes for g in graphs), dtype=np.int64, count=len(graphs))
    if (sizes == 0).any():
        raise ValueError("batch_graphs got a graph without nodes; filter invalid graphs first")
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    feats = np.concatenate([g.features for g in graphs], axis=0)
    src = np.concatenate([g.src + o for g, o in zip(graphs, offsets)])
    dst = np.concatenate([g.dst + o for g, o in zip(graphs, offsets)])
    total = int(sizes.sum())
    src_t, dst_t = torch.from_numpy(src), torch.from_numpy(dst)
    g = dgl.graph((src_t, dst_t), num_nodes=total)
    rev = dgl.graph((dst_t, src_t), num_nodes=total)
    graph_ids = torch.from_numpy(np.repeat(np.arange(len(graphs)), sizes))
    batch = GraphBatch(g, rev, torch.from_numpy(feats), graph_ids, len(graphs))
    if graphs[0].stores is not None:
        counts = np.fromiter((len(gr.stores) for gr in graphs), dtype=np.int64,
                             count=len(graphs))
        batch.stores = torch.from_numpy(np.concatenate([gr.stores for gr in graphs], axis=0))
        batch.store_ids = torch.from_numpy(np.repeat(np.arange(len(graphs)), counts))
    return batch

