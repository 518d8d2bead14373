"""A user's own model as something to tune, with TVM's conventions (as ``tvmc`` takes them):

- an ONNX file (``model.onnx``), input shapes from ``--input-shapes`` or from the file;
- a TorchScript file (``model.pt``), input shapes from ``--input-shapes``, each input float32
  unless its entry names another dtype (``ids:[1,128]:int64``);
- a Python entry point (``my_pkg.models:build``): a function that returns a
  ``torch.nn.Module`` and its example inputs (a tensor or a sequence of them), or the module
  alone (a constructor such as ``torchvision.models:resnet18``), its inputs then given by
  ``--input-shapes`` as for TorchScript; or a Relay model, ``(tvm.IRModule, params)`` as
  ``relay.testing`` gives one.

Each comes with a reference: the original model run by its own framework (ONNX Runtime, or
torch eager), which a tuned build's outputs are checked against and whose time it is
compared with; a Relay model is checked against its untuned build.
"""
from __future__ import annotations

import importlib
import logging
import os
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .convert import convert_layout
from .errors import error_summary
from .onnx_compat import CHECKER_WARNING, reduce_axes_as_attributes

logger = logging.getLogger("tvm_gnn_cost")

#: What the reference does: input name -> array in, output arrays out.
Reference = Callable[[Dict[str, np.ndarray]], List[np.ndarray]]

MODEL_SUFFIXES = (".onnx", ".pt", ".pth", ".ts")
# a name may hold colons, dots and slashes, as tvmc reads it ("input_1:0", TensorFlow's names)
_SHAPE = re.compile(r"([^\s,\[\]]+?)\s*:\s*\[([0-9,\s]*)\](?::([a-z]+[0-9]*))?")


@dataclass
class ModelSource:
    """A user's model imported into Relay, and the original to check against."""

    name: str
    mod: object  # tvm.IRModule
    params: dict
    inputs: Dict[str, Tuple[Tuple[int, ...], str]]  # name -> (shape, dtype), in order
    reference: Optional[Reference]  # None: checked against its untuned TVM build
    framework: str  # "onnxruntime", "torch", or "" (a Relay model)


def is_model_spec(spec: str) -> bool:
    """True if ``spec`` names a model file or a ``module:function`` entry point."""
    return spec.endswith(MODEL_SUFFIXES) or os.path.isfile(spec) or (
        ":" in spec and re.fullmatch(r"[\w.]+:[\w.]+", spec) is not None)


def parse_input_shapes(text: Optional[str]) -> Dict[str, Tuple[int, ...]]:
    """``"input:[1,3,224,224] mask:[1,128]"`` (tvmc's ``--input-shapes``) as a dict, in order."""
    return {name: tuple(int(d) for d in dims.split(",") if d.strip())
            for name, dims, _ in _input_entries(text)}


def parse_input_dtypes(text: Optional[str]) -> Dict[str, str]:
    """The dtypes ``--input-shapes`` names after an input's shape (``ids:[1,128]:int64``).

    tvmc takes no dtypes and reads a TorchScript file's inputs as float32; a model that takes
    token ids needs ``int64``. Inputs without one are left out.
    """
    dtypes = {name: dtype for name, _, dtype in _input_entries(text) if dtype}
    for name, dtype in dtypes.items():
        try:
            np.dtype(dtype)
        except TypeError:
            raise ValueError(f"--input-shapes: {dtype!r} (input {name!r}) is not a dtype; use "
                             "one such as float32, int64, int32") from None
    return dtypes


def _input_entries(text: Optional[str]) -> List[Tuple[str, str, str]]:
    if not text:
        return []
    found = _SHAPE.findall(text)
    rest = _SHAPE.sub("", text).replace(",", " ").strip()
    if not found or rest:
        raise ValueError(f"--input-shapes takes NAME:[D1,D2,...] separated by spaces, as tvmc "
                         f"does, for example 'input:[1,3,224,224]', with an optional dtype "
                         f"after the shape ('ids:[1,128]:int64'); got {text!r}")
    return found


def load_model(spec: str, input_shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
               layout: Optional[str] = "NHWC",
               input_dtypes: Optional[Dict[str, str]] = None) -> ModelSource:
    """Import the model ``spec`` names (see the module's docstring) into Relay.

    Parameters
    ----------
    spec : str
        ``*.onnx``, a TorchScript file, or ``package.module:function``.
    input_shapes : dict, optional
        Input name -> shape; needed for TorchScript and an entry point that returns a module
        alone, optional for ONNX (the file's static shapes), refused for an entry point that
        returns example inputs (they say).
    layout : str, optional
        Convolution layout to convert to (``NHWC``: what Ansor's CPU schedules are written
        for); None keeps the model's.
    input_dtypes : dict, optional
        Input name -> dtype of the inputs ``input_shapes`` gives (float32 otherwise); an ONNX
        file's must agree with the file.
    """
    input_shapes, input_dtypes = dict(input_shapes or {}), dict(input_dtypes or {})
    if spec.endswith(".onnx"):
        source = _from_onnx(spec, input_shapes, input_dtypes)
    elif spec.endswith(MODEL_SUFFIXES[1:]) or os.path.isfile(spec):
        source = _from_torchscript(spec, input_shapes, input_dtypes)
    elif ":" in spec:
        source = _from_entry_point(spec, input_shapes, input_dtypes)
    else:
        raise ValueError(f"{spec!r} is neither a model file (.onnx, .pt) nor an entry point "
                         "(package.module:function)")
    if layout:
        source.mod = convert_layout(source.mod, layout)
    return source


def _from_onnx(path: str, shapes: Dict[str, Tuple[int, ...]],
               dtypes: Dict[str, str]) -> ModelSource:
    from tvm import relay

    model, inputs = read_onnx(path, shapes, dtypes)
    reduce_axes_as_attributes(model)  # what torch.onnx.export writes, as TVM 0.19 reads it
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=CHECKER_WARNING.pattern)
        mod, params = run_frontend(path, lambda: relay.frontend.from_onnx(
            model, {n: s for n, (s, _) in inputs.items()},
            dtype={n: d for n, (_, d) in inputs.items()}, freeze_params=True))
    return ModelSource(os.path.basename(path), mod, params, inputs, onnxruntime_reference(path),
                       "onnxruntime")


def read_onnx(path: str, shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
              dtypes: Optional[Dict[str, str]] = None):
    """An ONNX file and its inputs: ``(onnx.ModelProto, {name: (shape, dtype)})``, each
    input's shape from ``shapes`` or else the file's static one."""
    onnx = _require("onnx")
    shapes, dtypes = dict(shapes or {}), dict(dtypes or {})
    if not os.path.exists(path):
        raise FileNotFoundError(f"no ONNX file at {path}")
    try:
        model = onnx.load(path)
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError and others
        raise ValueError(f"{path} is not a readable ONNX model ({type(err).__name__}: {err}); "
                         "export it again with torch.onnx.export or check the file") from None
    initializers = {i.name for i in model.graph.initializer}
    inputs: Dict[str, Tuple[Tuple[int, ...], str]] = {}
    dynamic: Dict[str, list] = {}  # inputs without a static shape -> their dims
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dtype = str(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type))
        if dtypes.get(value.name, dtype) != dtype:
            raise ValueError(f"input {value.name!r} of {path} is {dtype}, not "
                             f"{dtypes[value.name]}; an ONNX file's dtypes cannot be changed")
        dims = [d.dim_value if d.dim_value > 0 else (d.dim_param or "?")
                for d in tensor.shape.dim]
        shape = shapes.pop(value.name, None)
        if shape is None:
            if not dims or not all(isinstance(d, int) for d in dims):
                dynamic[value.name] = dims
            shape = tuple(dims)
        inputs[value.name] = (tuple(shape), dtype)
    if shapes:
        raise ValueError(f"{path} has no input {sorted(shapes)}; its inputs: {list(inputs)}")
    if dynamic:
        given = " ".join(f"{n}:[{','.join(str(d) if isinstance(d, int) else '1' for d in s)}]"
                         for n, (s, _) in inputs.items())
        which = ", ".join(f"{n!r} [{','.join(map(str, dims))}]" for n, dims in dynamic.items())
        many = len(dynamic) > 1
        raise ValueError(f"input{'s' * many} {which} of {path} {'have' if many else 'has'} no "
                         f"static shape; give every input's shape with --input-shapes, for "
                         f"example '{given}'")
    return model, inputs


def _require(name: str):
    """The ONNX package ``name``, or a ValueError that says how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ValueError(f"ONNX models need {name}: pip install 'tvm-gnn-cost[onnx]' (onnx "
                         "1.17, whose onnx.mapping TVM 0.19's frontend imports, and ONNX "
                         "Runtime)") from None


def onnxruntime_reference(path: str) -> Reference:
    """The ONNX file run by ONNX Runtime (CPU provider)."""
    onnxruntime = _require("onnxruntime")
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    return lambda feeds: [np.asarray(o) for o in session.run(None, feeds)]


def _from_torchscript(path: str, shapes: Dict[str, Tuple[int, ...]],
                      dtypes: Dict[str, str]) -> ModelSource:
    import torch

    if not os.path.exists(path):
        raise FileNotFoundError(f"no TorchScript file at {path}")
    try:
        module = torch.jit.load(path, map_location="cpu").eval()
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise ValueError(f"{path} is not a readable TorchScript file ({first}); save it with "
                         "torch.jit.trace(model, example_inputs).save(path), or pass --network "
                         "package.module:function returning the module and example "
                         "inputs") from None
    shapes = _torchscript_inputs(path, module, shapes)
    return _torch_source(os.path.basename(path), module, _zeros(shapes, dtypes), list(shapes))


def _torchscript_inputs(path: str, module, shapes: Dict[str, Tuple[int, ...]]
                        ) -> Dict[str, Tuple[int, ...]]:
    """``shapes`` in the order of the module's ``forward`` arguments: by name where the names
    are its arguments', else in the order given (as tvmc takes them)."""
    args = [a.name for a in module.forward.schema.arguments[1:]]  # [0] is self
    if len(shapes) != len(args):
        example = " ".join(f"{a}:[1,3,224,224]" if i == 0 else f"{a}:[...]"
                           for i, a in enumerate(args))
        raise ValueError(f"{path} takes {len(args)} input(s) ({', '.join(args)}) and "
                         f"--input-shapes gives {len(shapes)}; a TorchScript file does not say "
                         f"its input shapes: give each, in order, for example '{example}'")
    if set(shapes) == set(args):
        return {a: shapes[a] for a in args}
    return shapes


def _from_entry_point(spec: str, shapes: Dict[str, Tuple[int, ...]],
                      dtypes: Dict[str, str]) -> ModelSource:
    out = _call(spec)
    if _is_relay(out):
        return _relay_source(spec, *out, shapes)
    name, module, examples, names = _torch_module(spec, out, shapes, dtypes)
    return _torch_source(name, module, examples, names)


def load_entry_point(spec: str, shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
                     dtypes: Optional[Dict[str, str]] = None
                     ) -> Tuple[str, object, list, List[str]]:
    """The ``torch.nn.Module`` an entry point ``package.module:function`` gives, in eval
    mode, with its example inputs: ``(name, module, examples, input names)``.

    The inputs are the function's own, or zeros of ``shapes`` (and ``dtypes``) where it
    returns the module alone.
    """
    out = _call(spec)
    if _is_relay(out):
        raise ValueError(f"{spec} returns a Relay module; this path takes a torch.nn.Module")
    return _torch_module(spec, out, dict(shapes or {}), dict(dtypes or {}))


def _call(spec: str):
    """What the entry point ``package.module:function`` returns."""
    module_name, _, func_name = spec.partition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())  # as `python -m` finds a module of the working folder
    try:
        func = getattr(importlib.import_module(module_name), func_name)
    except (ImportError, AttributeError) as err:
        hint = "It must be an importable package.module:function"
        if "module export function" in str(err):  # Python imports NAME.so before NAME.py
            hint = (f"A compiled library named like the module ({module_name.split('.')[-1]}"
                    ".so, an earlier --export?) hides it: rename or move the library")
        raise ValueError(f"cannot load {spec}: {err}. {hint}") from err
    return func()


def _is_relay(out) -> bool:
    """``(tvm.IRModule, params)``: a Relay model, as TVM's own ``relay.testing`` gives one."""
    if not (isinstance(out, tuple) and len(out) == 2):
        return False
    import tvm

    return isinstance(out[0], tvm.IRModule)


def _relay_source(spec: str, mod, params: dict, shapes: Dict[str, Tuple[int, ...]]
                  ) -> ModelSource:
    """A Relay model from an entry point: its inputs are the main function's parameters that
    ``params`` does not bind; its outputs are checked against its untuned build."""
    from tvm import relay

    if shapes:
        raise ValueError(f"{spec} returns a Relay module, whose input shapes are its own; "
                         "drop --input-shapes")
    mod = relay.transform.InferType()(mod)
    inputs = {p.name_hint: (tuple(int(d) for d in p.checked_type.shape), p.checked_type.dtype)
              for p in mod["main"].params if p.name_hint not in params}
    return ModelSource(spec.partition(":")[2], mod, params, inputs, None, "")


def _torch_module(spec: str, out, shapes: Dict[str, Tuple[int, ...]],
                  dtypes: Dict[str, str]) -> Tuple[str, object, list, List[str]]:
    import torch

    func_name = spec.partition(":")[2]
    if isinstance(out, torch.nn.Module):  # a model constructor, such as torchvision's
        if not shapes:
            raise ValueError(f"{spec} returned a module without example inputs; give its input "
                             "shapes with --input-shapes 'x:[1,3,224,224]', or return (module, "
                             "example inputs)")
        return func_name, out.eval(), _zeros(shapes, dtypes), list(shapes)
    if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], torch.nn.Module)):
        raise ValueError(f"{spec} must return a torch.nn.Module, (module, example inputs) or "
                         f"(tvm.IRModule, params); it returned {type(out).__name__}")
    if shapes:
        raise ValueError(f"{spec} gives its own example inputs; drop --input-shapes")
    module, examples = out
    examples = [examples] if isinstance(examples, torch.Tensor) else list(examples)
    return func_name, module.eval(), examples, [f"input{i}" for i in range(len(examples))]


def _zeros(shapes: Dict[str, Tuple[int, ...]], dtypes: Dict[str, str]) -> list:
    """Example inputs of the given shapes, float32 unless ``dtypes`` names another dtype."""
    import torch

    return [torch.zeros(s, dtype=getattr(torch, dtypes.get(n, "float32")))
            for n, s in shapes.items()]


#: What to do when a TorchScript module does not import: Relay reads traces.
SCRIPTED_FIX = ("If it was made by torch.jit.script, use torch.jit.trace(model, example_inputs) "
                "instead: TVM's PyTorch frontend reads traced modules, and scripting keeps "
                "operators (aten::conv2d) and control flow that it does not. Or export the "
                "model to ONNX")


def _torch_source(name: str, module, examples: Sequence, names: List[str]) -> ModelSource:
    import torch
    from tvm import relay

    scripted = isinstance(module, torch.jit.ScriptModule)  # a file, or an entry point's
    script = module if scripted else trace(module, examples)
    inputs = {n: (tuple(x.shape), str(x.dtype).replace("torch.", ""))
              for n, x in zip(names, examples)}
    mod, params = run_frontend(
        name, lambda: relay.frontend.from_pytorch(script, list(inputs.items())),
        SCRIPTED_FIX if scripted else None)
    return ModelSource(name, mod, params, inputs, torch_reference(module, names), "torch")


def trace(module, examples: Sequence):
    """``torch.jit.trace`` of ``module`` as Relay's PyTorch frontend can read it.

    Torch's fast path for ``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer`` (taken
    in eval mode without gradients) traces into a fused operator that the frontend has no
    conversion for; it is turned off while tracing, which computes the same.
    """
    import torch

    fast = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.no_grad():
            return torch.jit.trace(module, tuple(examples))
    finally:
        torch.backends.mha.set_fastpath_enabled(fast)


def run_frontend(name: str, convert, fix: Optional[str] = None):
    """Run a TVM frontend (Relay's or Relax's); what it raises (operators it lacks, shapes
    that do not fit, a bug of its own) becomes a ValueError of one line that says what to try
    (``fix``, where the model's own form is known to be the cause)."""
    import tvm

    try:
        return convert()
    except (NotImplementedError, tvm.error.OpNotImplemented) as err:
        raise ValueError(f"TVM's frontend cannot import {name}: {error_summary(err)}. "
                         + (fix or "Replace those operators in the model, or export it another "
                                   "way (ONNX or TorchScript)")) from None
    except getattr(tvm, "TVMError", RuntimeError) as err:  # apache-tvm: RuntimeError's kinds
        # most often type inference: shapes that do not fit
        raise ValueError(f"TVM cannot import {name}: {error_summary(err)}. "
                         + (fix or "If the input shapes are the cause, check --input-shapes: "
                                   "each input's shape must be one the model accepts, and "
                                   "agree with the others'")) from None
    except Exception as err:  # noqa: BLE001 - a bug of the frontend itself (TypeError, ...)
        logger.debug("the frontend's traceback", exc_info=True)
        raise ValueError(f"TVM's frontend failed on {name}: {error_summary(err).rstrip('.!')}. "
                         + (fix or "Export the model another way (ONNX with another opset, "
                                   "TorchScript, or a package.module:function entry "
                                   "point)")) from None


def torch_reference(module, names: Sequence[str]) -> Reference:
    """The module run by torch (eager), outputs flattened to a list of arrays."""
    import torch

    def run(feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
        with torch.no_grad():
            out = module(*[torch.from_numpy(np.ascontiguousarray(feeds[n])) for n in names])
        flat = list(out) if isinstance(out, (tuple, list)) else [out]
        return [o.detach().numpy() for o in flat]

    return run


__all__ = ["ModelSource", "Reference", "is_model_spec", "load_entry_point", "load_model",
           "onnxruntime_reference", "parse_input_dtypes", "parse_input_shapes", "read_onnx",
           "run_frontend", "torch_reference", "trace"]
