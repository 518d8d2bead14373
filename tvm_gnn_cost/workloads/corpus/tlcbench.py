"""The layers of TLCBench's per-layer Ansor logs (``crazydemo/TLCBench``, commit bde82a1,
``tmp_logs_layers/autoscheduler/platinum-8358/``), written here from the shapes its
``utils.py`` publishes, so that the tasks of those logs can be rebuilt
(``tvm-gnn-cost import``).

- ``MLP1``: 13 -> 512 -> 256 -> 128, each ``nn.matmul`` (weights ``[in, out]``) then ReLU;
- ``MLP2``: 479 -> 1024 -> 1024 -> 512 -> 256 -> 1, the same;
- ``MHA1``-``MHA4``: the attention core of a transformer layer (sequence, width, heads)
  = (128, 768, 8), (128, 768, 12), (384, 1024, 8), (512, 1024, 16): scores by
  ``batch_matmul`` of the heads with a key of shape ``[batch x heads, head width,
  sequence]``, divided by a scalar (``sqrt(sequence)``), a mask added, softmax,
  ``batch_matmul`` with the values, heads moved back.

Each at a batch and a dtype, as an entry point of ``--network``:
``tvm_gnn_cost.workloads.corpus.tlcbench:mlp1_b32_float32`` returns the Relay module and its
parameters (random, as TLCBench's). Only float32 is defined: the int8 logs' quantized graphs
are not.
"""
from __future__ import annotations

import re
from typing import Dict, Tuple

import numpy as np

#: name -> widths of its matmuls, in order.
MLPS = {"mlp1": (13, 512, 256, 128), "mlp2": (479, 1024, 1024, 512, 256, 1)}
#: name -> (sequence, width, heads).
MHAS = {"mha1": (128, 768, 8), "mha2": (128, 768, 12), "mha3": (384, 1024, 8),
        "mha4": (512, 1024, 16)}
_NAME = re.compile(r"(mlp[12]|mha[1-4])_b(\d+)_(float32)")


def layer(name: str, batch: int, dtype: str = "float32"):
    """``(mod, params)`` of a TLCBench layer (``mlp1``, ``mlp2``, ``mha1``-``mha4``)."""
    import tvm
    from tvm import relay

    rng = np.random.default_rng(0)
    params: Dict[str, np.ndarray] = {}

    def weight(pname: str, shape: Tuple[int, ...], low=-1.0, high=1.0):
        params[pname] = rng.uniform(low, high, shape).astype(dtype)
        return relay.var(pname, shape=shape, dtype=dtype)

    if name in MLPS:
        widths = MLPS[name]
        out = relay.var("data", shape=(batch, widths[0]), dtype=dtype)
        for i, (n_in, n_out) in enumerate(zip(widths, widths[1:])):
            out = relay.nn.relu(relay.nn.matmul(out, weight(f"kernel{i + 1}", (n_in, n_out))))
    elif name in MHAS:
        seq, width, heads = MHAS[name]
        head = width // heads
        x = relay.var("data", shape=(batch, heads, seq, head), dtype=dtype)
        out = relay.reshape(x, [batch * heads, seq, head])
        out = relay.nn.batch_matmul(out, weight("matmul1_kernel", (batch * heads, head, seq)),
                                    transpose_a=False, transpose_b=False)
        # TLCBench binds a 0-d array to its (1,) divisor: a scalar, which fuses as a constant
        out = relay.divide(out, weight("f_score_div", (), np.sqrt(seq), np.sqrt(seq)))
        out = relay.reshape(out, [batch, heads, seq, seq])
        out = relay.add(out, weight("f_score_add", (batch, 1, 1, seq)))
        out = relay.nn.softmax(out, axis=3)
        out = relay.reshape(out, [batch * heads, seq, seq])
        out = relay.nn.batch_matmul(out, weight("matmul2_kernel", (batch * heads, seq, head)),
                                    transpose_a=False, transpose_b=False)
        out = relay.transpose(relay.reshape(out, [batch, heads, seq, head]), [0, 2, 1, 3])
    else:
        raise ValueError(f"no TLCBench layer {name!r}; the layers: "
                         f"{', '.join([*MLPS, *MHAS])}")
    return tvm.IRModule.from_expr(relay.Function(relay.analysis.free_vars(out), out)), params


def entry_point(log_name: str) -> str:
    """The ``--network`` of a TLCBench log's file name (``MLP1-B32-float32.json`` ->
    ``tvm_gnn_cost.workloads.corpus.tlcbench:mlp1_b32_float32``)."""
    stem = log_name.split("/")[-1].split(".")[0].lower().replace("-", "_")
    if not _NAME.fullmatch(stem):
        raise ValueError(f"{log_name} is not a float32 TLCBench layer log "
                         "(MLP1/2 or MHA1-4, -B<batch>-float32)")
    return f"{__name__}:{stem}"


def __getattr__(attr: str):
    """``mlp1_b32_float32`` and the like: entry points returning ``(mod, params)``."""
    m = _NAME.fullmatch(attr)
    if m is None:
        raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
    name, batch, dtype = m.group(1), int(m.group(2)), m.group(3)
    return lambda: layer(name, batch, dtype)
