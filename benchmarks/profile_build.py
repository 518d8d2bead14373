"""Where a tuned network's time goes: each fused function of the build, timed alone, beside
the tuned tasks' estimate (issue 20: the GPT block builds to 1.5-1.9 ms while its tasks'
estimates add up to 1.07-1.16 ms).

Builds ``--network`` with the best schedules of ``--log`` (as ``compare`` does), runs TVM's
debug executor (each node of the graph timed on its own, median of repeats) and sums the
functions that are an Ansor task of the network and those that are not (injective functions
Ansor leaves to TVM's default schedules): :mod:`tvm_gnn_cost.ansor.profile`, which ``tune
--profile`` runs after its build. Prints a table and writes JSON::

    PYTHONPATH=benchmarks/models python benchmarks/profile_build.py --network unseen:gpt_block \\
        --log runs/default-gpt_block/logs/gnn-seed0.json --json profile.json

``bench_default.sh`` keeps each run's log, gzipped, in ``benchmarks/results/default/NET/logs/``
(``gunzip`` it first). Results: ``benchmarks/results/default-model.md``.
"""
from __future__ import annotations

import argparse
import json


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--network", required=True, help="as for tvm-gnn-cost tune")
    ap.add_argument("--log", required=True, help="Ansor log with the tuned schedules")
    ap.add_argument("--repeat", type=int, default=20, help="timings of each node")
    ap.add_argument("--json", default=None, help="write the table as JSON here")
    args = ap.parse_args()

    import tvm

    from tvm_gnn_cost.ansor.build import build_network
    from tvm_gnn_cost.ansor.profile import profile_build
    from tvm_gnn_cost.workloads.networks import load_workload
    from tvm_gnn_cost.workloads.targets import host_target

    target = tvm.target.Target(host_target())
    workload = load_workload(args.network, target)
    lib = build_network(workload, target, args.log)
    profile = profile_build(lib, workload, args.log, target, args.repeat)
    print(profile.describe(top=len(profile.rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"network": args.network, "log": args.log, **profile.to_dict()}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
