"""What weight prepacking (TVM's ``cpu_weight_prepack``, on by default in ``tune --searcher
metaschedule``) changes: the same network tuned with and without it (same seed, model and
budget), both libraries and the framework timed in turns (apache-tvm).

    .venv-modern/bin/python benchmarks/bench_ms_prepack.py \\
        --network tvm_gnn_cost.workloads.corpus.cnn:cnn --trials-per-task 32 --out runs/prepack

A finished tuning run (its exported library) is reused. Writes OUT/results.json and
OUT/summary.md.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

from tvm_gnn_cost.threads import use_every_core


def tune(network: str, work: str, lib: str, trials_per_task: int, seed: int,
         prepack: bool) -> str:
    """Run ``tune --searcher metaschedule`` (unless its library exists); its printout."""
    text = lib + ".txt"
    if not os.path.exists(lib):
        argv = [sys.executable, "-m", "tvm_gnn_cost", "tune", "--searcher", "metaschedule",
                "--network", network, "--trials-per-task", str(trials_per_task),
                "--seed", str(seed), "--log", work, "--export", lib]
        if not prepack:
            argv.append("--no-weight-prepack")
        with open(text, "w") as f:
            subprocess.run(argv, check=True, stdout=f, stderr=subprocess.STDOUT)
    with open(text) as f:
        return f.read()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--network", required=True, help="an ONNX file or package.module:function")
    p.add_argument("--trials-per-task", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    use_every_core()  # the libraries timed here run as `tune` timed them
    os.makedirs(args.out, exist_ok=True)

    import tvm
    from tvm import relax

    from tvm_gnn_cost.metaschedule.relax_build import vm_timer
    from tvm_gnn_cost.metaschedule.tuning import ms_workload_from_model
    from tvm_gnn_cost.workloads.harness import reference_timer, time_side_by_side
    from tvm_gnn_cost.workloads.targets import host_target, with_num_cores

    printouts, timers = {}, {}
    model = ms_workload_from_model(args.network, with_num_cores(host_target())).model
    feeds = model.feeds()
    for prepack in (True, False):
        name = "prepack" if prepack else "no-prepack"
        lib = os.path.join(args.out, f"{name}.so")
        printouts[name] = tune(args.network, os.path.join(args.out, name), lib,
                               args.trials_per_task, args.seed, prepack)
        vm = relax.VirtualMachine(tvm.runtime.load_module(lib), tvm.cpu())
        timers[name] = vm_timer(vm, feeds, tvm.cpu())
    timers[model.framework] = reference_timer(model.reference, feeds)
    seconds = time_side_by_side(timers)
    estimates = {name: float(text.split("estimated latency ")[1].split()[0])
                 for name, text in printouts.items()}
    result = {"network": args.network, "trials_per_task": args.trials_per_task,
              "seed": args.seed, "ms": {k: v * 1e3 for k, v in seconds.items()},
              "estimate_ms": estimates}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    ms = result["ms"]
    lines = ["| build | built (ms) | estimate (ms) | / framework |", "|---|---:|---:|---:|"]
    for name in ("prepack", "no-prepack"):
        lines.append(f"| {name} | {ms[name]:.3f} | {estimates[name]:.3f} | "
                     f"{ms[name] / ms[model.framework]:.2f} |")
    lines.append(f"| {model.framework} | {ms[model.framework]:.3f} | | 1.00 |")
    summary = "\n".join(lines) + (f"\n\nprepack / no-prepack: "
                                  f"{ms['prepack'] / ms['no-prepack']:.2f} (timed in turns)\n")
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(summary)
    print(summary)
    return 0 if np.isfinite(list(ms.values())).all() else 1


if __name__ == "__main__":
    sys.exit(main())
