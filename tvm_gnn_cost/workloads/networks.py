"""Networks and single operators to tune: ``relay.testing`` models, a BERT-style encoder,
any ``torch.nn.Module``, and matmul / conv2d on their own."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import numpy as np
import tvm

try:
    from tvm import auto_scheduler, relay
except ImportError:  # apache-tvm >= 0.20: no Relay, no Ansor (MetaSchedule imports through Relax)
    auto_scheduler = relay = None

from .convert import convert_layout
from .fusion import sink_reshapes
from .inputs import InputRange, input_ranges, random_inputs
from .targets import without_tophub

logger = logging.getLogger("tvm_gnn_cost")

# BERT-style encoders: name -> (width, attention heads), as BERT-Tiny and BERT-Medium are sized
# (two layers each, sequence 64 unless --input-shape says otherwise). The shipped dataset
# trains on bert-tiny and bert-medium and holds out bert.
BERT_SIZES = {"bert": (256, 4), "bert-tiny": (128, 2), "bert-medium": (512, 8)}

#: Built-in workloads that are single operators, not networks (no graph to check or rewrite).
SINGLE_OPERATORS = ("matmul", "conv2d", "demo")

NETWORKS = ("resnet-18", "resnet-50", "mobilenet", "squeezenet", "inception-v3", "dcgan",
            *BERT_SIZES, *SINGLE_OPERATORS)


@dataclass
class Workload:
    """What to tune: either a relay network or a list of single-operator tasks."""

    name: str
    tasks: List[auto_scheduler.SearchTask]
    weights: List[int]
    mod: Optional[tvm.IRModule] = None
    params: Optional[dict] = None
    inputs: Dict[str, Tuple[Tuple[int, ...], str]] = field(default_factory=dict)
    no_rewrite: FrozenSet[str] = frozenset()  # workloads tuned and built without layout rewrite
    reference: Optional[Callable] = None  # the original model run by its framework (models.py)
    framework: str = ""  # what runs the reference: "torch", "onnxruntime"
    input_ranges: Dict[str, InputRange] = field(default_factory=dict)  # inputs.input_ranges

    @property
    def is_network(self) -> bool:
        return self.mod is not None

    def feeds(self, seed: int = 0) -> Dict[str, np.ndarray]:
        """Random inputs of the network, each over the range it accepts (:mod:`.inputs`)."""
        return random_inputs(self.inputs, seed, self.input_ranges)


def relay_network(name: str, batch_size: int = 1,
                  input_shape: Optional[Sequence[int]] = None) -> Tuple[tvm.IRModule, dict, dict]:
    """A ``relay.testing`` network in the layout Ansor prefers on CPU (NHWC).

    Parameters
    ----------
    name : str
        One of resnet-18, resnet-50, mobilenet, squeezenet, inception-v3, dcgan, or a BERT-style
        encoder: bert (width 256), bert-tiny (128) or bert-medium (512).
    batch_size : int
    input_shape : sequence of int, optional
        Image shape (H, W, C) for the CNNs, (sequence length,) for the encoders, (C, H, W) of the
        generated image for dcgan; default: the model's usual size.

    Returns
    -------
    mod, params, inputs
        ``inputs`` maps input names to (shape, dtype).
    """
    from tvm.relay import testing

    shape = tuple(input_shape) if input_shape else None
    if name.startswith("resnet-"):
        layers = int(name.split("-")[1])
        hwc = shape or (224, 224, 3)
        mod, params = testing.resnet.get_workload(num_layers=layers, batch_size=batch_size,
                                                  layout="NHWC", image_shape=hwc)
        return mod, params, {"data": ((batch_size,) + hwc, "float32")}
    if name == "mobilenet":
        hwc = shape or (224, 224, 3)
        mod, params = testing.mobilenet.get_workload(batch_size=batch_size, layout="NHWC",
                                                     image_shape=hwc)
        return mod, params, {"data": ((batch_size,) + hwc, "float32")}
    if name in ("squeezenet", "inception-v3"):
        hwc = shape or ((224, 224, 3) if name == "squeezenet" else (299, 299, 3))
        chw = (hwc[2], hwc[0], hwc[1])
        if name == "squeezenet":
            mod, params = testing.squeezenet.get_workload(batch_size=batch_size, version="1.1",
                                                          image_shape=chw)
        else:
            mod, params = testing.inception_v3.get_workload(batch_size=batch_size, image_shape=chw)
        return convert_layout(mod), params, {"data": ((batch_size,) + chw, "float32")}
    if name == "dcgan":
        mod, params = testing.dcgan.get_workload(batch_size=batch_size, oshape=shape or (3, 64, 64))
        return mod, params, {"data": ((batch_size, 100), "float32")}
    if name in BERT_SIZES:
        seq_len = shape[0] if shape else 64
        d_model, heads = BERT_SIZES[name]
        return bert_encoder(batch_size, seq_len, d_model, heads)
    raise ValueError(f"unknown network {name!r}; choose one of {', '.join(NETWORKS)}")


def from_torch(module, example_inputs: Sequence, input_names: Optional[Sequence[str]] = None):
    """Import any ``torch.nn.Module`` through ``torch.jit.trace`` and ``relay.frontend.from_pytorch``.

    Returns mod, params and the inputs as (shape, dtype), with conv2d in NHWC.
    """
    from .models import trace

    module = module.eval()
    names = list(input_names or [f"input{i}" for i in range(len(example_inputs))])
    traced = trace(module, example_inputs)
    shapes = [(n, tuple(x.shape)) for n, x in zip(names, example_inputs)]
    mod, params = relay.frontend.from_pytorch(traced, shapes)
    inputs = {n: (tuple(x.shape), str(x.dtype).replace("torch.", ""))
              for n, x in zip(names, example_inputs)}
    return convert_layout(mod), params, inputs


def bert_module(batch_size: int = 1, seq_len: int = 64, d_model: int = 256, heads: int = 4,
                layers: int = 2):
    """A small BERT-style encoder (``torch.nn.TransformerEncoder``) and an example input."""
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model,
                                             batch_first=True, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    return model, [torch.randn(batch_size, seq_len, d_model)]


def bert_encoder(batch_size: int = 1, seq_len: int = 64, d_model: int = 256, heads: int = 4,
                 layers: int = 2):
    """The BERT-style encoder of :func:`bert_module` as a relay module."""
    model, inputs = bert_module(batch_size, seq_len, d_model, heads, layers)
    return from_torch(model, inputs, ["data"])


def single_op(name: str, batch_size: int = 1,
              input_shape: Optional[Sequence[int]] = None) -> Tuple[str, tuple]:
    """The built-in workload (name registered in :mod:`.operators`) and arguments of an
    operator: ``matmul`` (shape n, m, k; default 512^3) or ``conv2d`` (H, W, C_in, C_out,
    kernel; default 56, 56, 64, 64, 3 with bias and ReLU)."""
    if name == "matmul":
        n, m, k = tuple(input_shape) if input_shape else (512, 512, 512)
        return "matmul", (n * batch_size, m, k)
    if name == "conv2d":
        h, w, ci, co, kern = tuple(input_shape) if input_shape else (56, 56, 64, 64, 3)
        return "conv2d_bias_relu", (batch_size, h, w, ci, co, kern)
    raise ValueError(f"{name!r} is not a single operator; use matmul or conv2d")


def single_op_tasks(name: str, target, batch_size: int = 1,
                    input_shape: Optional[Sequence[int]] = None) -> List[auto_scheduler.SearchTask]:
    """The Ansor task of an operator, as :func:`single_op` describes it."""
    from . import operators  # noqa: F401 - registers the workloads

    func, args = single_op(name, batch_size, input_shape)
    return [auto_scheduler.SearchTask(func=f"tvm_gnn_cost.{func}", args=args, target=target)]


def load_workload(name: str, target, batch_size: int = 1,
                  input_shape: Optional[Sequence[int]] = None,
                  input_shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
                  layout: Optional[str] = "NHWC",
                  input_dtypes: Optional[Dict[str, str]] = None,
                  ranges: Optional[Dict[str, InputRange]] = None,
                  fast_math: bool = False) -> Workload:
    """Tasks (and, for networks, the relay module) of ``name`` for ``target``.

    ``name`` is a built-in network or operator (:data:`NETWORKS`), or a user's model: an ONNX
    or TorchScript file or a ``package.module:function`` entry point
    (:mod:`.models`, with ``input_shapes``, ``input_dtypes`` and the convolution ``layout``).
    ``ranges`` sets the range an input's check values are drawn from
    (:func:`.inputs.input_ranges` says the default). ``fast_math`` replaces ``exp``, ``erf``,
    ``tanh`` and softmax by TVM's vectorizable approximations (Relay's ``FastMath``) before the
    tasks are extracted, so that the tasks tuned are the functions built; the output check
    still holds the build to the reference.
    """
    from .models import is_model_spec, load_model, torch_reference

    without_tophub()
    if name in SINGLE_OPERATORS:
        if ranges:
            raise ValueError(f"input ranges are for networks; the single operators of {name} "
                             "are checked on values in [0, 1)")
        if fast_math:
            raise ValueError(f"fast math is for networks; the single operators of {name} "
                             "compute no exp, erf, tanh or softmax: leave --fast-math out")
    if name in ("matmul", "conv2d"):
        tasks = single_op_tasks(name, target, batch_size, input_shape)
        return Workload(name, tasks, [1] * len(tasks))
    if name == "demo":  # `make demo`: a 256^3 matmul and a ResNet-style conv2d, each once
        from .operators import demo_tasks

        return Workload(name, demo_tasks(target), [1, 1])
    reference, framework = None, ""
    if name in NETWORKS:
        mod, params, inputs = relay_network(name, batch_size, input_shape)
        if name in BERT_SIZES:  # the encoder comes from torch: check against it
            module, _ = bert_module(batch_size, input_shape[0] if input_shape else 64,
                                    *BERT_SIZES[name])
            reference, framework = torch_reference(module, list(inputs)), "torch"
    elif is_model_spec(name):
        source = load_model(name, input_shapes, layout, input_dtypes)
        mod, params, inputs = source.mod, source.params, source.inputs
        reference, framework = source.reference, source.framework
    else:
        raise ValueError(f"unknown network {name!r}: give one of {', '.join(NETWORKS)}, an "
                         "ONNX or TorchScript file, or a package.module:function entry point")
    from .layout import (broadcast_weights_to_dense, use_rewritable_dense,  # Ansor's
                         without_broken_rewrite)

    use_rewritable_dense()
    mod = sink_reshapes(broadcast_weights_to_dense(mod))
    if fast_math:
        mod = relay.transform.FastMath()(relay.transform.InferType()(mod))
    tasks, weights = auto_scheduler.extract_tasks(mod["main"], params, target)
    if not tasks:
        raise ValueError(f"no tunable task found in {name} for target {target}")
    tasks, no_rewrite = without_broken_rewrite(tasks)
    return Workload(name, tasks, [int(w) for w in weights], mod, params, inputs, no_rewrite,
                    reference, framework, input_ranges(inputs, mod, ranges))
