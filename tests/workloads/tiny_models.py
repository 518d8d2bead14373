"""Small models that tests bring in through ``--network module:function``, as a user would."""
import torch


def encoder():
    """A one-layer transformer encoder (width 32, 2 heads, sequence 16), random weights."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(32, 2, dim_feedforward=64, batch_first=True,
                                             dropout=0.0)
    return torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False), torch.randn(1, 16, 32)


def cnn():
    """A convolution, ReLU and a linear layer on an 8x8 RGB image, in NCHW as torch has it."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 6 * 6, 4))
    return model.eval(), torch.randn(1, 3, 8, 8)


class _LanguageModel(torch.nn.Module):
    """Token ids in, logits out: embedding, causal self-attention, GELU MLP, LM head."""

    def __init__(self, vocab=50, width=32, seq=8):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.norm = torch.nn.LayerNorm(width)
        self.attn = torch.nn.MultiheadAttention(width, 2, batch_first=True)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 2 * width), torch.nn.GELU(),
                                       torch.nn.Linear(2 * width, width))
        self.head = torch.nn.Linear(width, vocab)
        self.register_buffer("mask", torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1))

    def forward(self, ids):
        x = self.embed(ids)
        h = self.norm(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        return self.head(x + self.mlp(self.norm(x)))


def language_model():
    """A one-block causal language model on 8 int64 token ids (vocabulary 50), random weights.

    Left as torch builds it: in eval mode ``nn.MultiheadAttention`` takes torch's fast path,
    whose fused operator Relay cannot import unless the tracing turns it off.
    """
    torch.manual_seed(0)
    return _LanguageModel().eval(), torch.randint(0, 50, (1, 8))


class _TwoInputs(torch.nn.Module):
    """An image and a feature vector in; logits and the features' embedding out."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
        self.side = torch.nn.Linear(4, 8)
        self.head = torch.nn.Linear(16, 5)

    def forward(self, image, features):
        side = torch.relu(self.side(features))
        return self.head(torch.cat([self.conv(image), side], 1)), side


def two_inputs():
    """A model with two inputs (an 8x8 RGB image, 4 features) and two outputs."""
    torch.manual_seed(0)
    return _TwoInputs().eval(), (torch.randn(1, 3, 8, 8), torch.randn(1, 4))


class _Upsampler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return torch.nn.functional.interpolate(self.conv(x), scale_factor=2.0, mode="bilinear",
                                               align_corners=False)


def upsampler():
    """A convolution and a bilinear 2x upsampling (segmentation heads, U-Nets, FPNs)."""
    torch.manual_seed(0)
    return _Upsampler().eval(), torch.randn(1, 3, 8, 8)


def scripted_cnn():
    """:func:`cnn` through ``torch.jit.script``, which Relay's frontend cannot read."""
    model, x = cnn()
    return torch.jit.script(model), x


def cnn_module():
    """:func:`cnn`'s module alone, as a constructor such as ``torchvision.models.resnet18``
    returns it: the inputs come from ``--input-shapes``."""
    return cnn()[0]


class _Reductions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        pooled = y.mean((2, 3))  # a global average pool: ReduceMean over two axes
        return (torch.nn.functional.normalize(pooled, dim=1)  # ReduceL2
                + y.amax((2, 3)) - y.sum((1, 3)).sum(1, keepdim=True) / 64)


def reductions():
    """Reductions over several axes, which ONNX opset 18 passes as an input (what
    ``torch.onnx.export`` writes by default)."""
    torch.manual_seed(0)
    return _Reductions().eval(), torch.randn(1, 3, 8, 8)


class _WrongWhenTraced(torch.nn.Module):
    """Computes one thing in torch and another in its trace, which is what TVM imports: the
    build is wrong against torch, as a corrupted weight or a wrong schedule would make it."""

    def __init__(self, how: str):
        super().__init__()
        self.fc = torch.nn.Linear(16, 8)
        self.how = how

    def forward(self, x):
        y = torch.relu(self.fc(x))
        if torch.jit.is_tracing():  # (y * nan, TVM's fast math folds to 0)
            y = torch.sqrt(-1.0 - y) if self.how == "nan" else y + 0.5
        return y


def nan_when_traced():
    """A dense layer whose build gives NaN everywhere, torch numbers."""
    torch.manual_seed(0)
    return _WrongWhenTraced("nan").eval(), torch.randn(1, 16)


def off_when_traced():
    """A dense layer whose build is off by 0.5 from torch's outputs."""
    torch.manual_seed(0)
    return _WrongWhenTraced("off").eval(), torch.randn(1, 16)


class _WrongWhenExported(torch.nn.Module):
    """Computes one thing in torch and another in what ``torch.export`` captures, which is
    what Relax imports: the build is off by 0.5 against torch."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        return y + 0.5 if torch.compiler.is_exporting() else y


def wrong_when_exported():
    """A dense layer whose Relax build is off by 0.5 against torch eager."""
    torch.manual_seed(0)
    return _WrongWhenExported().eval(), torch.randn(1, 16)
