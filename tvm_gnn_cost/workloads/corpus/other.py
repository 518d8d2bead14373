"""The rest of the corpus: 3-D and 1-D convolutions, recurrent cells, embeddings, reductions
and elementwise chains. Random weights; each function returns ``(module, example inputs)``."""
from __future__ import annotations

import torch
from torch import nn


def _cbr3(cin, cout, k, stride=1):
    pad = tuple(x // 2 for x in k) if isinstance(k, tuple) else k // 2
    return nn.Sequential(nn.Conv3d(cin, cout, k, stride, pad, bias=False), nn.BatchNorm3d(cout),
                         nn.ReLU())


def video_conv3d():
    """A C3D-style video network: 3x3x3 convs and 3-D max / average pooling over 8 frames of
    56x56."""
    torch.manual_seed(40)
    model = nn.Sequential(_cbr3(3, 32, 3), nn.MaxPool3d((1, 2, 2)), _cbr3(32, 64, 3),
                          nn.MaxPool3d(2), _cbr3(64, 128, 3), _cbr3(128, 128, 3),
                          nn.AvgPool3d(2), nn.AdaptiveAvgPool3d(1), nn.Flatten(),
                          nn.Linear(128, 20))
    return model.eval(), torch.randn(1, 3, 8, 56, 56)


def r2plus1d_block():
    """R(2+1)D blocks: each 3-D conv factorized into a 1x3x3 spatial and a 3x1x1 temporal
    conv, with residuals, 8 frames of 28x28. (A test network.)"""
    torch.manual_seed(41)

    class Block(nn.Module):
        def __init__(self, c, mid):
            super().__init__()
            self.body = nn.Sequential(_cbr3(c, mid, (1, 3, 3)), _cbr3(mid, c, (3, 1, 1)),
                                      _cbr3(c, mid, (1, 3, 3)),
                                      nn.Conv3d(mid, c, (3, 1, 1), padding=(1, 0, 0)))

        def forward(self, x):
            return torch.relu(x + self.body(x))

    model = nn.Sequential(_cbr3(3, 64, (3, 7, 7), (1, 2, 2)), Block(64, 144))
    return model.eval(), torch.randn(1, 3, 8, 56, 56)


def audio_conv1d():
    """A wav2vec-style feature encoder: strided 1-D convs (kernels 10, 3, 2) with GELU and
    group norm over one second of 16 kHz audio, then a 1-D depthwise conv."""
    torch.manual_seed(42)
    layers = [nn.Conv1d(1, 128, 10, 5, bias=False), nn.GroupNorm(128, 128), nn.GELU()]
    for k, s in ((3, 2), (3, 2), (3, 2), (2, 2), (2, 2)):
        layers += [nn.Conv1d(128, 128, k, s, bias=False), nn.GELU()]
    layers += [nn.Conv1d(128, 128, 16, 1, 8, groups=16), nn.GELU()]
    return nn.Sequential(*layers).eval(), torch.randn(1, 1, 16000)


class _SpeechEncoder(nn.Module):
    """A Whisper-style audio encoder: two 1-D convs over log-mel frames (the second strided),
    GELU, then a pre-LayerNorm attention block."""

    def __init__(self, mels, d, heads):
        super().__init__()
        from .transformer import _Block

        self.c1 = nn.Conv1d(mels, d, 3, 1, 1)
        self.c2 = nn.Conv1d(d, d, 3, 2, 1)
        self.block = _Block(d, heads)

    def forward(self, x):
        x = nn.functional.gelu(self.c2(nn.functional.gelu(self.c1(x))))
        return self.block(x.transpose(1, 2))


def speech_encoder():
    """80 log-mel channels over 200 frames, width 256, 4 heads. (A test network.)"""
    torch.manual_seed(43)
    return _SpeechEncoder(80, 256, 4).eval(), torch.randn(1, 80, 200)


class _LSTM(nn.Module):
    """Two stacked LSTM layers unrolled over ``steps``: each layer's gates one dense layer,
    sigmoid and tanh."""

    def __init__(self, d, hidden, steps):
        super().__init__()
        self.steps, self.hidden = steps, hidden
        self.gates = nn.ModuleList([nn.Linear(d + hidden[0], 4 * hidden[0]),
                                    nn.Linear(hidden[0] + hidden[1], 4 * hidden[1])])

    def forward(self, x):
        hs = [x.new_zeros(x.shape[0], h) for h in self.hidden]
        cs = [x.new_zeros(x.shape[0], h) for h in self.hidden]
        for t in range(self.steps):
            inp = x[:, t]
            for layer, gates in enumerate(self.gates):
                i, f, g, o = gates(torch.cat([inp, hs[layer]], 1)).chunk(4, 1)
                cs[layer] = torch.sigmoid(f) * cs[layer] + torch.sigmoid(i) * torch.tanh(g)
                hs[layer] = inp = torch.sigmoid(o) * torch.tanh(cs[layer])
        return hs[-1]


def lstm_unrolled():
    """Two LSTM layers (hidden widths 256, 192) over input width 128, 4 steps, batch 4."""
    torch.manual_seed(44)
    return _LSTM(128, (256, 192), 4).eval(), torch.randn(4, 4, 128)


class _DLRM(nn.Module):
    """A DLRM-style recommender: a bottom MLP of dense features, embedding lookups, pairwise
    dot-product interaction (batch_matmul), a top MLP."""

    def __init__(self, dense, tables, rows, dim):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense, 256), nn.ReLU(), nn.Linear(256, dim),
                                    nn.ReLU())
        self.tables = nn.ModuleList(nn.Embedding(rows, dim) for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(n * n + dim, 256), nn.ReLU(), nn.Linear(256, 1),
                                 nn.Sigmoid())

    def forward(self, dense, ids):
        z = torch.stack([self.bottom(dense)] + [t(ids[:, i]) for i, t in
                                                enumerate(self.tables)], 1)
        inter = (z @ z.transpose(1, 2)).flatten(1)
        return self.top(torch.cat([z[:, 0], inter], 1))


def dlrm():
    """Batch 32, 13 dense features, 8 tables of 1000 rows, embedding width 64."""
    torch.manual_seed(45)
    return _DLRM(13, 8, 1000, 64).eval(), (torch.randn(32, 13),
                                           torch.randint(0, 1000, (32, 8)))


class _Reductions(nn.Module):
    """Reductions over different axes and sizes: softmax and log-softmax over wide rows,
    variance, max, sums over leading and trailing axes, L2 normalization, logsumexp."""

    def forward(self, x):
        a = torch.softmax(x, -1) + torch.log_softmax(x, 1)
        b = x.var(-1, keepdim=True) + x.amax(1, keepdim=True)
        c = x.sum(0, keepdim=True) * x.mean((1, 2), keepdim=True)
        d = x / x.norm(dim=-1, keepdim=True) + torch.logsumexp(x, -1, keepdim=True)
        return a * b + c - d


def reductions():
    """The reductions of :class:`_Reductions` on a 4 x 96 x 1000 tensor."""
    torch.manual_seed(46)
    return _Reductions().eval(), torch.randn(4, 96, 1000)


class _Elementwise(nn.Module):
    """Elementwise chains with broadcasting, each after the operator Relay fuses it into (an
    elementwise-only function is not a task Ansor tunes): swish and erf GELU after a 1x1
    conv, tanh GELU, per-channel scale and shift, clip and exp / log after a depthwise conv,
    reciprocal square root and mish after a dense layer."""

    def __init__(self, c):
        super().__init__()
        self.pointwise = nn.Conv2d(c, c, 1)
        self.depthwise = nn.Conv2d(c, c, 3, 1, 1, groups=c)
        self.dense = nn.Linear(c, 4 * c)
        self.scale, self.shift = nn.Parameter(torch.randn(c, 1, 1)), nn.Parameter(torch.randn(c, 1, 1))

    def forward(self, x):
        y = self.pointwise(x)
        y = y * torch.sigmoid(y) + nn.functional.gelu(y)
        y = self.depthwise(y)
        y = nn.functional.gelu(y, approximate="tanh") * self.scale + self.shift
        y = torch.clamp(y, -3.0, 3.0) + torch.log(torch.exp(-y.abs()) + 1.0)
        z = self.dense(y.mean((2, 3)))
        z = z * torch.rsqrt(z * z + 1.0)
        return z * torch.tanh(nn.functional.softplus(z))  # mish: aten::mish has no converter


def elementwise():
    """The chains of :class:`_Elementwise` on a 64 x 56 x 56 feature map."""
    torch.manual_seed(47)
    return _Elementwise(64).eval(), torch.randn(1, 64, 56, 56)
