"""One graph convolution along the data flow of a program, DGL style."""
from __future__ import annotations

import torch
from torch import nn

from ._dgl import dgl, fn


class DataFlowConv(nn.Module):
    r"""Mix each stage with its producers and its consumers.

    .. math::
        h_v' = h_v + \mathrm{ReLU}\big(\mathrm{LN}(W_s h_v
               + W_p\,\mathrm{mean}_{u \to v} h_u + W_c\,\mathrm{mean}_{v \to w} h_w)\big)

    Producers and consumers get separate weights, since data flowing in and
    out of a stage mean different things for its cost.

    Parameters
    ----------
    dim : int
        Width of the node embeddings (input and output).
    dropout : float
        Dropout on the update, before the residual.

    Examples
    --------
    >>> import dgl, torch
    >>> g = dgl.graph(([0, 1], [1, 2]))
    >>> conv = DataFlowConv(8)
    >>> conv(g, dgl.reverse(g), torch.ones(3, 8)).shape
    torch.Size([3, 8])
    """

    def __init__(self, dim: int, dropout: float = 0.0):
        super().__init__()
        self._dim = dim
        self.self_lin = nn.Linear(dim, dim)
        self.prod_lin = nn.Linear(dim, dim, bias=False)
        self.cons_lin = nn.Linear(dim, dim, bias=False)
        self.norm = nn.LayerNorm(dim)
        self.dropout = nn.Dropout(dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reinitialize the learnable weights."""
        for lin in (self.self_lin, self.prod_lin, self.cons_lin):
            nn.init.xavier_uniform_(lin.weight)
        nn.init.zeros_(self.self_lin.bias)
        self.norm.reset_parameters()

    def forward(self, graph: dgl.DGLGraph, reverse: dgl.DGLGraph, feat: torch.Tensor) -> torch.Tensor:
        """Update node embeddings ``feat`` (num_nodes, dim) of ``graph``.

        ``reverse`` is ``graph`` with its edges flipped (consumer -> producer).
        """
        if feat.shape[-1] != self._dim:
            raise ValueError(f"DataFlowConv expects {self._dim} features per node, got {feat.shape[-1]}")
        with graph.local_scope(), reverse.local_scope():
            graph.ndata["h"] = self.prod_lin(feat)
            graph.update_all(fn.copy_u("h", "m"), fn.mean("m", "agg"))
            reverse.ndata["h"] = self.cons_lin(feat)
            reverse.update_all(fn.copy_u("h", "m"), fn.mean("m", "agg"))
            upd = self.self_lin(feat) + graph.ndata["agg"] + reverse.ndata["agg"]
        return feat + self.dropout(torch.relu(self.norm(upd)))
