"""Attention networks of the corpus: decoder and encoder blocks with masks, GELU and LayerNorm
chains, the matmul shapes of LLM decoders, vision transformers and mixers. Random weights;
each function returns ``(module, example inputs)``."""
from __future__ import annotations

import torch
from torch import nn


def _heads(x, heads):
    b, t, d = x.shape
    return x.reshape(b, t, heads, d // heads).transpose(1, 2)


def _merge(x):
    b, h, t, e = x.shape
    return x.transpose(1, 2).reshape(b, t, h * e)


class _Attention(nn.Module):
    """Multi-head attention with an additive mask (causal, padding, or none)."""

    def __init__(self, d, heads, kv_dim=None):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.kv = nn.Linear(kv_dim or d, 2 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, context=None, mask=None):
        context = x if context is None else context
        q = _heads(self.q(x), self.heads)
        k, v = (_heads(z, self.heads) for z in self.kv(context).chunk(2, dim=-1))
        att = q @ k.transpose(-2, -1) / (q.shape[-1] ** 0.5)
        if mask is not None:
            att = att + mask
        return self.out(_merge(torch.softmax(att, -1) @ v))


class _Block(nn.Module):
    """Pre-LayerNorm block: attention, then a GELU MLP of ``ratio`` times the width."""

    def __init__(self, d, heads, ratio=4, act=nn.GELU):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.att = _Attention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, ratio * d), act(), nn.Linear(ratio * d, d))

    def forward(self, x, mask=None):
        x = x + self.att(self.ln1(x), mask=mask)
        return x + self.mlp(self.ln2(x))


class _Causal(nn.Module):
    def __init__(self, block, seq):
        super().__init__()
        self.block = block
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x):
        return self.block(x, self.mask)


def gpt_decoder_384():
    """A GPT-2-style decoder block, width 384, 6 heads, sequence 128, causal mask, tanh GELU."""
    torch.manual_seed(30)
    block = _Block(384, 6, act=lambda: nn.GELU(approximate="tanh"))
    return _Causal(block, 128).eval(), torch.randn(1, 128, 384)


class _RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class _Llama(nn.Module):
    """A LLaMA-style block: RMSNorm, rotary position embedding, causal attention with grouped
    key/value heads, SwiGLU MLP."""

    def __init__(self, d, heads, kv_heads, hidden, seq):
        super().__init__()
        self.heads, self.kv_heads, self.e = heads, kv_heads, d // heads
        self.n1, self.n2 = _RMSNorm(d), _RMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.kv = nn.Linear(d, 2 * kv_heads * self.e, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gate = nn.Linear(d, hidden, bias=False)
        self.up = nn.Linear(d, hidden, bias=False)
        self.down = nn.Linear(hidden, d, bias=False)
        pos = torch.arange(seq)[:, None] / (10000 ** (torch.arange(0, self.e, 2) / self.e))
        self.register_buffer("cos", pos.cos().repeat(1, 2))
        self.register_buffer("sin", pos.sin().repeat(1, 2))
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def _rotate(self, x):
        half = x.shape[-1] // 2
        turned = torch.cat([-x[..., half:], x[..., :half]], -1)
        return x * self.cos + turned * self.sin

    def forward(self, x):
        b, t, d = x.shape
        h = self.n1(x)
        q = self._rotate(_heads(self.q(h), self.heads))
        k, v = (z.reshape(b, t, self.kv_heads, self.e).transpose(1, 2)
                for z in self.kv(h).chunk(2, dim=-1))
        k = self._rotate(k).repeat_interleave(self.heads // self.kv_heads, 1)
        v = v.repeat_interleave(self.heads // self.kv_heads, 1)
        att = torch.softmax(q @ k.transpose(-2, -1) / self.e ** 0.5 + self.mask, -1)
        x = x + self.o(_merge(att @ v))
        h = self.n2(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


def llama_block():
    """A LLaMA-style block, width 512, 8 heads (2 key/value heads), SwiGLU 1376, sequence 64."""
    torch.manual_seed(31)
    return _Llama(512, 8, 2, 1376, 64).eval(), torch.randn(1, 64, 512)


class _DecodeStep(nn.Module):
    """One token of LLM decoding with a key/value cache: matrix-vector products of a 1024-wide
    model, attention of one query over ``cache`` cached positions, a 4x GELU MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.e = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, k_cache, v_cache):
        q, k, v = (_heads(z, self.heads) for z in self.qkv(self.ln1(x)).chunk(3, dim=-1))
        k = torch.cat([k_cache, k], 2)
        v = torch.cat([v_cache, v], 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / self.e ** 0.5, -1)
        x = x + self.o(_merge(att @ v))
        return x + self.mlp(self.ln2(x))


def llm_decode_step():
    """One decoding step of a 1024-wide, 16-head model with 255 cached positions."""
    torch.manual_seed(32)
    d, heads, cache = 1024, 16, 255
    return _DecodeStep(d, heads).eval(), (torch.randn(1, 1, d),
                                          torch.randn(1, heads, cache, d // heads),
                                          torch.randn(1, heads, cache, d // heads))


class _PaddedEncoder(nn.Module):
    """Two encoder blocks whose attention masks padded positions (an input mask)."""

    def __init__(self, d, heads):
        super().__init__()
        self.blocks = nn.ModuleList([_Block(d, heads), _Block(d, heads)])

    def forward(self, x, keep):
        mask = (1.0 - keep[:, None, None, :]) * -10000.0
        for block in self.blocks:
            x = block(x, mask)
        return x


def encoder_padding_mask():
    """A BERT-style encoder of width 192, 3 heads, sequence 96, with a padding mask input."""
    torch.manual_seed(33)
    keep = torch.ones(1, 96)
    keep[:, 80:] = 0
    return _PaddedEncoder(192, 3).eval(), (torch.randn(1, 96, 192), keep)


class _ViT(nn.Module):
    def __init__(self, d, heads, depth, patch, image, classes):
        super().__init__()
        self.embed = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, d))
        self.blocks = nn.ModuleList(_Block(d, heads) for _ in range(depth))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x[:, 0]))


def vit_tiny():
    """A ViT-Tiny-like model: 16x16 patch embedding of a 128x128 image, width 192, 3 heads."""
    torch.manual_seed(34)
    return _ViT(192, 3, 2, 16, 128, 100).eval(), torch.randn(1, 3, 128, 128)


class _Mixer(nn.Module):
    def __init__(self, tokens, d):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.token = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(),
                                   nn.Linear(2 * tokens, tokens))
        self.channel = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.token(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel(self.n2(x))


def mlp_mixer():
    """Two MLP-Mixer layers: token mixing over 49 patches (transposes) and channel mixing
    over width 288. (At 64 patches of width 256 its LayerNorms and MLP were tasks of the
    validation encoder and the test GPT block too.)"""
    torch.manual_seed(35)
    return nn.Sequential(_Mixer(49, 288), _Mixer(49, 288)).eval(), torch.randn(1, 49, 288)


class _CrossDecoder(nn.Module):
    """A T5/Whisper-style decoder block: causal self-attention, cross-attention over an encoder
    output of another length and width, ReLU MLP."""

    def __init__(self, d, heads, enc_dim, seq):
        super().__init__()
        self.ln = nn.ModuleList(nn.LayerNorm(d) for _ in range(3))
        self.self_att = _Attention(d, heads)
        self.cross = _Attention(d, heads, kv_dim=enc_dim)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x, memory):
        x = x + self.self_att(self.ln[0](x), mask=self.mask)
        x = x + self.cross(self.ln[1](x), context=memory)
        return x + self.mlp(self.ln[2](x))


def cross_attention_decoder():
    """A decoder block of width 320, 5 heads, 40 target positions attending over 150 encoder
    positions of width 512."""
    torch.manual_seed(36)
    return (_CrossDecoder(320, 5, 512, 40).eval(),
            (torch.randn(1, 40, 320), torch.randn(1, 150, 512)))


def gpt_decoder_512():
    """A GPT-style decoder block, width 512, 8 heads, sequence 32. (A validation network.)"""
    torch.manual_seed(37)
    return _Causal(_Block(512, 8), 32).eval(), torch.randn(1, 32, 512)


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
    """One GPT-style decoder block, width 256, 4 heads, sequence 64, causal mask. (A test
    network.)"""
    torch.manual_seed(3)
    return _DecoderBlock(256, 4, 64).eval(), torch.randn(1, 64, 256)


class _WindowAttention(nn.Module):
    """Swin-style attention inside non-overlapping windows, with a learned relative-position
    bias gathered from a table, then a GELU MLP."""

    def __init__(self, d, heads, window):
        super().__init__()
        self.d, self.heads, self.window = d, heads, window
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window),
                                            indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + window - 1
        self.register_buffer("index", rel[..., 0] * (2 * window - 1) + rel[..., 1])
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, h, w, d = x.shape
        ws, n = self.window, self.window * self.window
        y = self.norm1(x).reshape(b, h // ws, ws, w // ws, ws, d).transpose(2, 3)
        y = y.reshape(-1, n, d)
        q, k, v = (_heads(z, self.heads) for z in self.qkv(y).chunk(3, dim=-1))
        bias = self.table[self.index.reshape(-1)].reshape(n, n, self.heads).permute(2, 0, 1)
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5 + bias, -1)
        y = self.proj(_merge(att @ v)).reshape(b, h // ws, w // ws, ws, ws, d)
        x = x + y.transpose(2, 3).reshape(b, h, w, d)
        return x + self.mlp(self.norm2(x))


def swin_window():
    """Two Swin-style window-attention blocks on a 28x28 map of width 112, 4 heads, 7x7
    windows: window partition (reshape / transpose) and a gathered relative-position bias."""
    torch.manual_seed(38)
    return (nn.Sequential(_WindowAttention(112, 4, 7), _WindowAttention(112, 4, 7)).eval(),
            torch.randn(1, 28, 28, 112))


def encoder_batch4():
    """An encoder block served at batch 4: width 320, 5 heads of 64, sequence 72, a ReLU MLP
    of twice the width."""
    torch.manual_seed(39)
    return _Block(320, 5, ratio=2, act=nn.ReLU).eval(), torch.randn(4, 72, 320)


class _T5Block(nn.Module):
    """A T5-style encoder block: RMSNorm, attention with a bucketless relative-position bias
    added to the scores, a gated-GELU feed-forward."""

    def __init__(self, d, heads, seq, ff):
        super().__init__()
        self.n1, self.n2 = _RMSNorm(d), _RMSNorm(d)
        self.att = _Attention(d, heads)
        self.bias = nn.Parameter(torch.randn(1, heads, seq, seq) * 0.1)
        self.wi, self.wg, self.wo = nn.Linear(d, ff), nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):
        x = x + self.att(self.n1(x), mask=self.bias)
        y = self.n2(x)
        return x + self.wo(nn.functional.gelu(self.wg(y)) * self.wi(y))


def t5_encoder():
    """A T5-style encoder block, width 448, 7 heads, sequence 48, gated-GELU feed-forward of
    1152."""
    torch.manual_seed(40)
    return _T5Block(448, 7, 48, 1152).eval(), torch.randn(1, 48, 448)


def long_attention():
    """An encoder block over a long sequence: 320 positions of width 128, 2 heads (softmax
    and attention products over 320x320 scores)."""
    torch.manual_seed(41)
    return _Block(128, 2).eval(), torch.randn(1, 320, 128)


def mlp_batch16():
    """A wide MLP tower at batch 16: 768 -> 3072 -> 3072 -> 512 with LayerNorm and GELU, as a
    recommendation or embedding model serves it."""
    torch.manual_seed(42)
    model = nn.Sequential(nn.LayerNorm(768), nn.Linear(768, 3072), nn.GELU(),
                          nn.Linear(3072, 3072), nn.GELU(), nn.Linear(3072, 512))
    return model.eval(), torch.randn(16, 768)
