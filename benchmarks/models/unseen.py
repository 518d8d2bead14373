"""Test networks for the default-model benchmark: none is in any training log, none was used to
choose a setting, and they stay out of training data. Random weights; each function returns
(torch.nn.Module, example input) for ``tvm-gnn-cost tune --network unseen:NAME`` (run with
``benchmarks/models`` on PYTHONPATH).
"""
import torch
from torch import nn


def cnn():
    """A torchvision-style CNN in NCHW: stem, two residual stages with downsampling, pooling,
    classifier; 112x112 input."""
    torch.manual_seed(1)

    def block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(), nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU())

    model = nn.Sequential(nn.Conv2d(3, 32, 7, 2, 3, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                          nn.MaxPool2d(3, 2, 1), block(32, 64, 2), block(64, 128, 2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 100))
    return model.eval(), torch.randn(1, 3, 112, 112)


class _MBConv(nn.Module):
    """MobileNetV3's inverted residual: expand, depthwise, squeeze-excite, project, hard-swish."""

    def __init__(self, c, expand, kernel):
        super().__init__()
        h = c * expand
        self.expand = nn.Sequential(nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h),
                                    nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(h, h, kernel, 1, kernel // 2, groups=h, bias=False),
                                nn.BatchNorm2d(h), nn.Hardswish())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(h, h // 4, 1), nn.ReLU(),
                                nn.Conv2d(h // 4, h, 1), nn.Hardsigmoid())
        self.project = nn.Sequential(nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        y = self.dw(self.expand(x))
        return x + self.project(y * self.se(y))


def mobilenetv3_block():
    """Two MobileNetV3 blocks (3x3 and 5x5 depthwise) on a 56x56x40 feature map."""
    torch.manual_seed(2)
    model = nn.Sequential(_MBConv(40, 3, 3), _MBConv(40, 6, 5))
    return model.eval(), torch.randn(1, 40, 56, 56)


class _DecoderBlock(nn.Module):
    """A GPT-style block: pre-LayerNorm causal self-attention and a GELU MLP."""

    def __init__(self, d, heads, seq):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.heads = heads
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.reshape(shape).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5 + self.mask, -1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


def gpt_block():
    """One GPT-style decoder block, width 256, 4 heads, sequence 64, causal mask."""
    torch.manual_seed(3)
    return _DecoderBlock(256, 4, 64).eval(), torch.randn(1, 64, 256)
