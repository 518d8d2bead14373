"""A user's model as Relax (apache-tvm, without Relay): imported with TVM's own frontends,
prepared as TVM's CPU tuning pipeline prepares it, with the original to check against.

    model = load_relax_model("model.onnx", target, {"input": (1, 3, 224, 224)})
    tasks = ms.relax_integration.extract_tasks(model.mod, target)

- an ONNX file: ``relax.frontend.onnx.from_onnx``, checked against ONNX Runtime;
- a ``package.module:function`` entry point returning a ``torch.nn.Module`` (and its example
  inputs, as for Ansor): ``torch.export`` and ``relax.frontend.torch.from_exported_program``,
  checked against torch eager.

A TorchScript file is refused: ``torch.export`` cannot read one (export it to ONNX, or give
the entry point that builds the module).

The weights are bound into the module as constants. The preparation is that of TVM's
``static_shape_tuning`` pipeline (``relax.pipeline``): ``DecomposeOpsForInference``,
``CanonicalizeBindings``, then legalization and fusion (``LegalizeOps``,
``AnnotateTIROpPattern``, ``FoldConstant``, ``FuseOps``, ``FuseTIR``), the functions
MetaSchedule tunes. With weight prepacking (its ``cpu_weight_prepack``, on by default here),
``AttachAttrLayoutFreeBuffers`` lets MetaSchedule's ``RewriteLayout`` give each tuned program
its weights in the layout it reads; since the weights are constants, the build folds that
layout change into them (:mod:`.relax_build`) and the library keeps the model's inputs.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..workloads.inputs import InputRange, input_ranges, random_inputs
from ..workloads.models import (MODEL_SUFFIXES, Reference, load_entry_point,
                                onnxruntime_reference, read_onnx, run_frontend, torch_reference)

#: Relax operators an index passes through unchanged on its way to the table it indexes.
_PASS_THROUGH = {"relax.astype", "relax.reshape", "relax.expand_dims", "relax.squeeze",
                 "relax.permute_dims", "relax.flatten"}


@dataclass
class RelaxModel:
    """A model prepared for MetaSchedule: fused Relax with its weights bound, its inputs, and
    the original run by its framework."""

    name: str
    mod: object  # tvm.IRModule, prepared (:func:`prepare`)
    inputs: Dict[str, Tuple[Tuple[int, ...], str]]  # name -> (shape, dtype), in order
    reference: Reference
    framework: str  # "onnxruntime" or "torch"
    weight_prepack: bool = True
    input_ranges: Dict[str, InputRange] = field(default_factory=dict)

    def feeds(self, seed: int = 0) -> Dict[str, np.ndarray]:
        """Random inputs, each over the range it accepts (:mod:`tvm_gnn_cost.workloads.inputs`)."""
        return random_inputs(self.inputs, seed, self.input_ranges)


def load_relax_model(spec: str, target, input_shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
                     input_dtypes: Optional[Dict[str, str]] = None,
                     given_ranges: Optional[Dict[str, InputRange]] = None,
                     weight_prepack: bool = True, layout: Optional[str] = None) -> RelaxModel:
    """Import and prepare the model ``spec`` names (see the module's docstring).

    Parameters
    ----------
    spec : str
        ``*.onnx`` or ``package.module:function``.
    target : tvm.target.Target
    input_shapes, input_dtypes : dict, optional
        As ``tune --input-shapes`` gives them: optional for ONNX (the file's static shapes
        otherwise), needed for an entry point that returns its module alone.
    given_ranges : dict, optional
        ``--input-range``: the values each input is checked with.
    weight_prepack : bool
        Let tuned programs read their weights in a layout of their own (default).
    layout : str, optional
        Convert convolutions to this data layout (``NHWC``); None keeps the model's.

    Raises
    ------
    ValueError
        A TorchScript file, a file that is not a model, or what the frontend cannot import,
        each with what to do instead.
    """
    input_shapes, input_dtypes = dict(input_shapes or {}), dict(input_dtypes or {})
    if spec.endswith(".onnx"):
        name, mod, inputs = _from_onnx(spec, input_shapes, input_dtypes)
        ranges = input_ranges(inputs, given=given_ranges, rows=table_rows(mod, list(inputs)))
        return RelaxModel(name, prepare(mod, target, weight_prepack, layout), inputs,
                          onnxruntime_reference(spec), "onnxruntime", weight_prepack, ranges)
    if spec.endswith(MODEL_SUFFIXES[1:]) or os.path.isfile(spec):
        raise ValueError(f"{spec}: a TorchScript file cannot be read by torch.export, which "
                         "brings torch models into Relax; export the model to ONNX, or pass "
                         "--network package.module:function returning the torch module (and "
                         "its example inputs)")
    if ":" not in spec:
        raise ValueError(f"{spec!r} is neither an ONNX file nor an entry point "
                         "(package.module:function)")
    name, module, examples, names = load_entry_point(spec, input_shapes, input_dtypes)
    return model_from_torch(name, module, examples, target, names, given_ranges,
                            weight_prepack, layout)


def model_from_torch(name: str, module, examples: Sequence, target,
                     names: Optional[Sequence[str]] = None,
                     given_ranges: Optional[Dict[str, InputRange]] = None,
                     weight_prepack: bool = True, layout: Optional[str] = None) -> RelaxModel:
    """A ``torch.nn.Module`` and its example inputs as a prepared :class:`RelaxModel`,
    checked against torch eager; inputs named ``names`` (default ``input0``, ...)."""
    names = list(names or [f"input{i}" for i in range(len(examples))])
    mod = relax_from_torch(module, examples, name)
    inputs = {n: (tuple(x.shape), str(x.dtype).replace("torch.", ""))
              for n, x in zip(names, examples)}
    ranges = input_ranges(inputs, given=given_ranges, rows=table_rows(mod, list(inputs)))
    return RelaxModel(name, prepare(mod, target, weight_prepack, layout), inputs,
                      torch_reference(module, names), "torch", weight_prepack, ranges)


def _from_onnx(path: str, shapes: Dict[str, Tuple[int, ...]], dtypes: Dict[str, str]):
    from tvm.relax.frontend.onnx import from_onnx

    model, inputs = read_onnx(path, shapes, dtypes)
    mod = run_frontend(path, lambda: from_onnx(
        model, {n: list(s) for n, (s, _) in inputs.items()},
        {n: d for n, (_, d) in inputs.items()}, keep_params_in_input=False))
    return os.path.basename(path), mod, inputs


def relax_from_torch(module, example_inputs: Sequence, name: str = "the model"):
    """A ``torch.nn.Module`` as Relax, through ``torch.export``, its weights bound."""
    import torch
    from tvm.relax.frontend.torch import from_exported_program

    def convert():
        with torch.no_grad():
            exported = torch.export.export(module.eval(), tuple(example_inputs))
        return from_exported_program(exported, keep_params_as_input=False)

    return run_frontend(name, convert, "torch.export and TVM's importer of exported programs "
                                       "must both read the model; export it to ONNX and tune "
                                       "the file, or replace the operators named")


def prepare(mod, target, weight_prepack: bool = True, layout: Optional[str] = None):
    """``mod`` as TVM's CPU tuning pipeline prepares it for MetaSchedule (the module's
    docstring); the tasks are its fused TIR functions."""
    import tvm
    from tvm.relax import transform as T

    passes = [T.DecomposeOpsForInference(), T.CanonicalizeBindings()]
    if layout:  # Relax names the kernel's layout too: the one that goes with the data's
        kernel = {"NHWC": "OHWI", "NCHW": "OIHW"}.get(layout)
        if kernel is None:
            raise ValueError(f"--desired-layout {layout}: MetaSchedule's path converts to NHWC "
                             "or NCHW")
        passes.append(T.ConvertLayout({"relax.nn.conv2d": [layout, kernel]}))
    passes += [T.LegalizeOps(), T.AnnotateTIROpPattern(), T.FoldConstant(), T.FuseOps(),
               T.FuseTIR()]
    if weight_prepack:
        passes.append(T.AttachAttrLayoutFreeBuffers())
    with tvm.target.Target(target):
        return tvm.transform.Sequential(passes)(mod)


def table_rows(mod, names: Sequence[str]) -> Dict[str, int]:
    """For each input of the Relax module ``mod`` (before :func:`prepare`) that indexes a
    table (``take``: torch's ``Embedding``, ONNX's ``Gather``), the rows of the smallest table
    it indexes; ``names`` are the inputs' names, in the order of ``main``'s parameters (the
    frontends name those their own way)."""
    import tvm
    from tvm import relax

    func = mod["main"]
    params = {_name(p): n for p, n in zip(func.params, names)}
    bound: Dict[object, object] = {}
    found: Dict[str, int] = {}

    def value(expr):
        while isinstance(expr, relax.Var) and expr in bound:
            expr = bound[expr]
        return expr

    def index_input(expr) -> Optional[str]:
        expr = value(expr)
        while isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op):
            if expr.op.name == "relax.where":  # ONNX's Gather: where(i < 0, i + rows, i)
                expr = value(expr.args[2])
            elif expr.op.name in _PASS_THROUGH:
                expr = value(expr.args[0])
            else:
                break
        return params.get(_name(expr)) if isinstance(expr, relax.Var) else None

    for block in getattr(func.body, "blocks", []):
        for binding in block.bindings:
            bound[binding.var] = binding.value
            call = binding.value
            if not (isinstance(call, relax.Call) and isinstance(call.op, tvm.ir.Op)
                    and call.op.name == "relax.take" and call.attrs.axis is not None):
                continue
            name = index_input(call.args[1])
            shape = _shape(call.args[0])
            if name is None or shape is None:
                continue
            rows = getattr(shape[int(call.attrs.axis)], "value", None)  # None: symbolic
            if rows is not None:
                found[name] = min(found.get(name, int(rows)), int(rows))
    return found


# apache-tvm 0.27 renamed a Relax variable's name_hint to name and its struct_info to ty.
def _name(var) -> str:
    return getattr(var, "name_hint", None) or var.name


def _shape(expr):
    info = getattr(expr, "struct_info", None) or getattr(expr, "ty", None)
    shape = getattr(info, "shape", None)
    return getattr(shape, "values", None)


__all__ = ["RelaxModel", "load_relax_model", "model_from_torch", "prepare", "relax_from_torch",
           "table_rows"]
