"""Targets: this machine's CPU, the core count MetaSchedule needs, and what this TVM can build."""
from __future__ import annotations

import logging
import os
from typing import Optional

import tvm

logger = logging.getLogger("tvm_gnn_cost")


def without_tophub() -> None:
    """Keep Relay from asking TopHub for AutoTVM configs: a download, retried over a missing
    network, and of no use to the auto-scheduler. A user's own ``TOPHUB_LOCATION`` wins."""
    os.environ.setdefault("TOPHUB_LOCATION", "NONE")


def host_target() -> tvm.target.Target:
    """LLVM for this machine's CPU, with its ``-mcpu`` (plain ``llvm`` is generic x86-64)."""
    # The dict form: apache-tvm 0.27 no longer parses "llvm -mcpu=..." (same target on 0.19).
    return tvm.target.Target({"kind": "llvm", "mcpu": tvm.target.codegen.llvm_get_system_cpu()})


def with_num_cores(target, num_cores: int = 0) -> tvm.target.Target:
    """``target`` with ``num-cores`` set (MetaSchedule's CPU rules need it); this machine's
    core count unless given."""
    target = tvm.target.Target(target)
    if "num-cores" in target.attrs:
        return target
    cores = num_cores or os.cpu_count() or 1
    return tvm.target.Target({**dict(target.export()), "num-cores": cores})


def shipped_prior_mismatch(target) -> Optional[str]:
    """Why the shipped checkpoint should not rank programs for ``target``, or None if it may.

    The rule, here and nowhere else: the shipped prior ranks programs of an LLVM target that
    compiles x86-64 code (``-mtriple`` x86_64 or amd64, or none on an x86-64 machine) with
    AVX-512 (``-mcpu`` of a CPU that has it, or ``-mattr=+avx512f``). It was trained on AMD
    Zen 4 and Zen 5 programs, and checked on two Intel designs it never saw: it ranks Rocket
    Lake's programs as well as Zen's (benchmarks/results/pretrain-accuracy.md) and leads
    stock Ansor early on Emerald Rapids (benchmarks/results/default-model.md); other AVX-512
    CPUs get it on that evidence. Another ISA, x86-64 without AVX-512 (plain ``llvm`` is
    generic x86-64 code), or a GPU is not what it learned.
    """
    target = tvm.target.Target(target)
    if target.kind.name != "llvm":
        return f"target kind {target.kind.name!r} is not a CPU"
    arch = _target_arch(target)
    if arch != "x86_64":
        return f"it was trained on x86-64 CPUs, not {arch}"
    if not tvm.target.codegen.llvm_cpu_has_features(["avx512f"], target):
        cpu = (f"-mcpu={target.mcpu}" if target.mcpu
               else "generic x86-64 code (no -mcpu, no -mattr=+avx512f)")
        return f"it was trained on CPUs with AVX-512, which {cpu} has not"
    return None


def shipped_prior(target=None, warn: bool = True) -> Optional[str]:
    """The shipped checkpoint's path where it fits ``target`` (default: this CPU) by
    :func:`shipped_prior_mismatch`, else None, with a warning that says why unless ``warn``
    is False."""
    from ..core.checkpoint import SHIPPED_CHECKPOINT

    why = shipped_prior_mismatch(target if target is not None else host_target())
    if why is None:
        return SHIPPED_CHECKPOINT
    if warn:
        logger.warning("the online GNN alone, without the shipped prior: %s", why)
    return None


_ARCH_ALIASES = {"arm64": "aarch64", "amd64": "x86_64"}


def _arch(triple: str) -> str:
    """The architecture of an LLVM triple (``aarch64-linux-gnu`` -> ``aarch64``)."""
    first = str(triple).split("-")[0]
    return _ARCH_ALIASES.get(first, first)


def _host_arch() -> str:
    return _arch(tvm.target.codegen.llvm_get_system_triple())


def _target_arch(target: tvm.target.Target) -> str:
    """What an LLVM target compiles for: its ``-mtriple``'s architecture, else this machine's."""
    triple = str(target.attrs.get("mtriple", ""))
    return _arch(triple) if triple else _host_arch()


def check_runs_here(target) -> None:
    """Raise ``ValueError`` if ``target`` is a CPU of another architecture than this machine's.

    Its programs build but cannot run here: measured locally, every one fails, and the job
    ends after its whole budget with nothing tuned. They are measured on the device, through
    an RPC tracker.
    """
    target = tvm.target.Target(target)
    if target.kind.name != "llvm" or not target.attrs.get("mtriple", ""):
        return
    arch, host = _target_arch(target), _host_arch()
    if arch != host:
        raise ValueError(
            f"it compiles for {arch}, and this machine is {host}, so its programs "
            "cannot be measured here. Measure them on the device through an RPC tracker "
            "(--rpc-key KEY --rpc-host HOST --rpc-port PORT), or tune for this machine "
            "(leave --target out)")


def check_target(target) -> None:
    """Raise ``ValueError`` if this TVM build cannot compile code for ``target``, or if its
    ``-mcpu`` is not a CPU that LLVM knows; warn about an LLVM CPU target without ``-mcpu``.

    A CUDA target on a TVM built without CUDA otherwise fails every single
    measurement with a build error, hours into a tuning job.
    """
    target = tvm.target.Target(target)
    kind = target.kind.name
    if tvm.get_global_func(f"target.build.{kind}", allow_missing=True) is None:
        raise ValueError(
            f"this TVM build cannot compile for target kind {kind!r} (no target.build.{kind}). "
            f"Install a TVM built with {kind} support (for CUDA: USE_CUDA=ON), or tune for the "
            "host CPU (the default target).")
    if kind == "llvm" and target.mcpu:
        # LLVM prints an error for a CPU it does not know, then emits generic code
        codegen = tvm.target.codegen
        archlist = getattr(codegen, "llvm_get_cpu_archlist", None)  # TVM 0.19 has it
        known = [str(c) for c in archlist(target) or []] if archlist else []
        if known and str(target.mcpu) not in known:
            triple = target.attrs.get("mtriple", "") or codegen.llvm_get_system_triple()
            raise ValueError(
                f"-mcpu={target.mcpu} is not a CPU that this LLVM knows for {triple}; use "
                f"-mcpu={codegen.llvm_get_system_cpu()} for this machine, or one of "
                f"{', '.join(sorted(known)[:8])}, ...")
    if kind == "llvm" and not target.mcpu:
        arch = _target_arch(target)
        if arch == _host_arch():
            logger.warning("target %r has no -mcpu: LLVM emits generic %s code. Add -mcpu=%s "
                           "for this machine.", str(target), arch,
                           tvm.target.codegen.llvm_get_system_cpu())
        else:
            logger.warning("target %r has no -mcpu: LLVM emits generic %s code. Add the "
                           "device's -mcpu.", str(target), arch)


__all__ = ["check_runs_here", "check_target", "host_target", "shipped_prior",
           "shipped_prior_mismatch", "with_num_cores", "without_tophub"]
