"""Summarize a resnet-18 `compare` folder whose runs did not all finish, at equal trials.

    .venv/bin/python benchmarks/r18_summary.py runs/r18 [--build]

Used for benchmarks/RESULTS.md when Ansor's XGBModel path aborted inside TVM (a C++
assertion) before the last rounds of two runs: every curve is cut at the smallest trial count
that all runs reached, so both models are compared at equal trials. Tuning time is counted
from each run's first record to its last (what the logs hold).
"""
import argparse
import glob
import os
import sys

from tvm_gnn_cost.curves import (Curve, curve_from_log, plot_curves, summary_table,
                                 weights_measured, write_curves)
from tvm_gnn_cost.workloads.networks import load_workload
from tvm_gnn_cost.workloads.targets import host_target


def cut(curve: Curve, trials: int) -> Curve:
    keep = [i for i, t in enumerate(curve.trials) if t <= trials]
    return Curve(curve.model, curve.seed, [curve.trials[i] for i in keep],
                 [curve.seconds[i] for i in keep], [curve.latency[i] for i in keep])


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--build", action="store_true", help="build and time each run's network")
    args = p.parse_args(argv)
    target = host_target()
    workload = load_workload("resnet-18", target)
    logs = sorted(glob.glob(os.path.join(args.out, "logs", "*-seed*.json")))
    weights, dropped = weights_measured(workload.tasks, workload.weights, logs)
    curves = []
    for log in logs:
        model, seed = os.path.basename(log)[:-5].split("-seed")
        curves.append(curve_from_log(log, weights, model, int(seed), round_size=16))
    common = min(c.trials[-1] for c in curves)
    curves = [cut(c, common) for c in curves]
    if args.build:
        from tvm_gnn_cost.workloads.deploy import build_and_time

        for c, log in zip(curves, logs):
            c.measured = build_and_time(workload, log, target)
    write_curves(curves, args.out)
    plot_curves(curves, os.path.join(args.out, "curves.png"),
                f"resnet-18 on {target}, cut at {common} trials")
    table = summary_table(curves)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(f"# resnet-18 on {target}, all runs cut at {common} trials\n\n{table}\n\n"
                f"Left out of the estimated latency (no valid measurement in any run): "
                f"{', '.join(dropped)}\n")
    print(f"equal trials: {common}")
    print(table)
    for c in curves:
        print(c.model, c.seed, f"final {c.final * 1e3:.3f} ms", f"wall {c.wall:.0f} s",
              f"trials {c.trials[-1]}",
              f"measured {c.measured * 1e3:.3f} ms" if c.measured else "")


if __name__ == "__main__":
    sys.exit(main())
