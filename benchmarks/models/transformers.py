"""Transformer-style networks a user brings, for the built-latency benchmark of issue 51
(``benchmarks/bench_transformers.py``): none is in any training log. Random weights.

- ``vit_small``: a ViT on a 64x64 image cut in 8x8 patches (64 tokens and a class token),
  width 144, 4 heads, two pre-norm encoder layers with a GELU MLP of 576, 10 classes; brought
  as ONNX with a dynamic batch;
- ``text_encoder``: a BERT-style encoder, 48 tokens, width 192, 3 heads, two post-norm layers
  with a ReLU MLP of 768; brought as TorchScript (``torch.jit.trace``);
- the GPT block of the test set (``tvm_gnn_cost.workloads.corpus.transformer.gpt_block``),
  brought as an entry point.
"""
from __future__ import annotations

import torch
from torch import nn

from tvm_gnn_cost.workloads.corpus.transformer import gpt_block

__all__ = ["gpt_block", "text_encoder", "vit_small"]


class _ViT(nn.Module):
    def __init__(self, image=64, patch=8, width=144, heads=4, layers=2, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, width, patch, stride=patch)
        tokens = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, tokens + 1, width) * 0.02)
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                           activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.norm(self.encoder(x))[:, 0])


def vit_small():
    torch.manual_seed(5)
    return _ViT().eval(), torch.randn(1, 3, 64, 64)


def text_encoder():
    torch.manual_seed(6)
    layer = nn.TransformerEncoderLayer(192, 3, 768, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    return model.eval(), torch.randn(1, 48, 192)
