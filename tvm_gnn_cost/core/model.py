"""The GNN: node encoder, data-flow convolutions, graph readout, one score."""
from __future__ import annotations

import torch
from torch import nn

from .config import READOUTS, ModelConfig
from .conv import DataFlowConv
from .graph import GraphBatch

STORE_SCALE = 16.0  # Ansor's per-store features are log2(1 + x): up to ~40


class ProgramGNN(nn.Module):
    """Scores a scheduled program from its stage graph.

    Node features are standardized with statistics fixed at the first fit
    (buffers ``feat_mean``/``feat_std``, saved with the weights), encoded by
    a two-layer MLP, mixed by ``config.layers`` :class:`DataFlowConv` layers,
    pooled per graph by sum and max (``config.readout="attention"`` adds an
    attention-weighted sum), and mapped to one raw score. Higher is faster.
    With ``n_store_features``, each graph's per-store rows of the lowered program
    (Ansor's features) go through an MLP and are summed into the readout too.

    Parameters
    ----------
    n_features : int
        Node feature width.
    config : ModelConfig
        Widths and depth.
    n_store_features : int
        Width of the per-store rows (0: graphs carry none).
    """

    def __init__(self, n_features: int, config: ModelConfig, n_store_features: int = 0):
        super().__init__()
        if config.readout not in READOUTS:
            raise ValueError(f"ModelConfig.readout={config.readout!r} is unknown; use one of "
                             f"{READOUTS}")
        self.n_features = n_features
        self.n_store_features = n_store_features
        self.config = config
        h = config.hidden
        self.register_buffer("feat_mean", torch.zeros(n_features))
        self.register_buffer("feat_std", torch.ones(n_features))
        self.encoder = nn.Sequential(nn.Linear(n_features, h), nn.ReLU(), nn.Linear(h, h))
        self.convs = nn.ModuleList(DataFlowConv(h, config.dropout) for _ in range(config.layers))
        pooled = 2 * h
        if config.readout == "attention":
            self.gate = nn.Linear(h, 1)
            pooled += h
        if n_store_features:
            self.store_encoder = nn.Sequential(nn.Linear(n_store_features, h), nn.ReLU(),
                                               nn.Linear(h, h))
            pooled += h
        self.head = nn.Sequential(
            nn.Linear(pooled, config.readout_hidden), nn.ReLU(), nn.Linear(config.readout_hidden, 1)
        )

    def set_normalization(self, rows: torch.Tensor) -> None:
        """Fix the input standardization from node rows ``(n, n_features)``."""
        self.set_normalization_stats(rows.mean(0), rows.std(0, unbiased=False))

    def set_normalization_stats(self, mean, std) -> None:
        """Fix the input standardization from a feature mean and standard deviation."""
        self.feat_mean.copy_(torch.as_tensor(mean, dtype=self.feat_mean.dtype))
        self.feat_std.copy_(torch.as_tensor(std, dtype=self.feat_std.dtype).clamp_min(1.0))

    def forward(self, batch: GraphBatch) -> torch.Tensor:
        """Raw scores, shape ``(batch.num_graphs,)``."""
        x = (batch.features - self.feat_mean) / self.feat_std
        if self.training and self.config.input_noise > 0:
            x = x + self.config.input_noise * torch.randn_like(x)
        h = self.encoder(x)  # (N, H)
        for conv in self.convs:
            h = conv(batch.graph, batch.reverse, h)
        ids = batch.graph_ids
        pooled_sum = h.new_zeros(batch.num_graphs, h.shape[1]).index_add_(0, ids, h)
        pooled_max = h.new_full((batch.num_graphs, h.shape[1]), float("-inf"))
        pooled_max = pooled_max.scatter_reduce(0, ids[:, None].expand_as(h), h, "amax")
        pooled = [pooled_sum, pooled_max]
        if self.config.readout == "attention":
            pooled.append(self._attention(h, ids, batch.num_graphs))
        if self.n_store_features:
            # Ansor's features are already log2(1 + x); /STORE_SCALE brings them near 1
            s = self.store_encoder(batch.stores / STORE_SCALE)
            pooled.append(s.new_zeros(batch.num_graphs, s.shape[1])
                          .index_add_(0, batch.store_ids, s))
        return self.head(torch.cat(pooled, dim=1)).squeeze(1)

    def _attention(self, h: torch.Tensor, ids: torch.Tensor, num_graphs: int) -> torch.Tensor:
        """Sum of node embeddings weighted by a softmax of learned gates over each graph."""
        gate = self.gate(h).squeeze(1)
        top = gate.new_full((num_graphs,), float("-inf")).scatter_reduce(0, ids, gate, "amax")
        w = torch.exp(gate - top[ids])
        w = w / w.new_zeros(num_graphs).index_add_(0, ids, w)[ids]
        return h.new_zeros(num_graphs, h.shape[1]).index_add_(0, ids, w[:, None] * h)
