"""Small models that tests bring in through ``--network module:function``, as a user would."""
import torch


def encoder():
    """A one-layer transformer encoder (width 32, 2 heads, sequence 16), random weights."""
    torch.manual_seed(0)
    torch.backends.mha.set_fastpath_enabled(False)  # the fast path does not trace
    layer = torch.nn.TransformerEncoderLayer(32, 2, dim_feedforward=64, batch_first=True,
                                             dropout=0.0)
    return torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False), torch.randn(1, 16, 32)


def cnn():
    """A convolution, ReLU and a linear layer on an 8x8 RGB image, in NCHW as torch has it."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 6 * 6, 4))
    return model.eval(), torch.randn(1, 3, 8, 8)
