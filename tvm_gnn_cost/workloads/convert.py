"""Layout conversion of imported Relay modules, shared by the built-in networks and users'
models."""
from __future__ import annotations

import tvm

try:
    from tvm import relay
except ImportError:  # apache-tvm >= 0.20: no Relay
    relay = None

#: ``--desired-layout`` choices: convolutions in NHWC (what Ansor's CPU schedules are written
#: for, as its tutorials and tvmc's ``--desired-layout NHWC`` use) or as the model has them.
LAYOUTS = ("NHWC", "NCHW")


def convert_layout(mod, layout: str = "NHWC"):
    """``mod`` with its 2-D convolutions in ``layout`` (Relay's ``ConvertLayout``)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    seq = tvm.transform.Sequential([
        relay.transform.InferType(),
        relay.transform.ConvertLayout({"nn.conv2d": [layout, "default"],
                                       "qnn.conv2d": [layout, "default"]}),
    ])
    with tvm.transform.PassContext(opt_level=3):
        return seq(mod)


__all__ = ["LAYOUTS", "convert_layout"]
