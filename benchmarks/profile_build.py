"""Where a tuned network's time goes: each fused function of the build, timed alone, beside
the tuned tasks' estimate (issue 20: the GPT block builds to 1.5-1.9 ms while its tasks'
estimates add up to 1.07-1.16 ms).

Builds ``--network`` with the best schedules of ``--log`` (as ``compare`` does), runs TVM's
debug executor (each node of the graph timed on its own, median of repeats) and sums the
functions that are an Ansor task of the network and those that are not (injective functions
Ansor leaves to TVM's default schedules). Prints a table and writes JSON::

    PYTHONPATH=benchmarks/models python benchmarks/profile_build.py --network unseen:gpt_block \\
        --log runs/default-gpt_block/logs/gnn-seed0.json --json profile.json

``bench_default.sh`` keeps each run's log, gzipped, in ``benchmarks/results/default/NET/logs/``
(``gunzip`` it first). Results: ``benchmarks/results/default-model.md``.
"""
from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import defaultdict

import numpy as np


def _function(name: str) -> str:
    """A fused function's name without the build's or the task's prefix:
    ``tvmgen_default_fused_nn_dense_add_1`` and task ``vm_mod_fused_nn_dense_add_1`` ->
    ``fused_nn_dense_add_1``."""
    return re.sub(r"^(tvmgen_default_|vm_mod_)", "", name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--network", required=True, help="as for tvm-gnn-cost tune")
    ap.add_argument("--log", required=True, help="Ansor log with the tuned schedules")
    ap.add_argument("--repeat", type=int, default=20, help="timings of each node")
    ap.add_argument("--json", default=None, help="write the table as JSON here")
    args = ap.parse_args()

    import tvm
    from tvm import auto_scheduler
    from tvm.contrib.debugger import debug_executor

    from tvm_gnn_cost.ansor.records import FAILED_COST, measured_cost
    from tvm_gnn_cost.ansor.build import build_network
    from tvm_gnn_cost.workloads.networks import load_workload
    from tvm_gnn_cost.workloads.targets import host_target

    target = tvm.target.Target(host_target())
    workload = load_workload(args.network, target)
    lib = build_network(workload, target, args.log)
    dev = tvm.cpu(0)
    graph_nodes = json.loads(lib.get_graph_json())["nodes"]
    with tempfile.TemporaryDirectory() as dump:
        module = debug_executor.create(lib.get_graph_json(), lib.get_lib(), dev, dump_root=dump)
        module.set_input(**lib.get_params())
        module.set_input(**workload.feeds())
        times = module.run_individual(number=10, repeat=args.repeat, min_repeat_ms=10)
    nodes = [n for n in graph_nodes if n["op"] == "tvm_op"]
    # one time for every node of the graph (inputs and parameters take none), or for each op
    names = [n["name"] for n in (graph_nodes if len(times) == len(graph_nodes) else nodes)]
    if len(names) != len(times):
        raise SystemExit(f"{len(times)} timings for {len(graph_nodes)} graph nodes")
    per_node = {name: float(np.median(t)) for name, t in zip(names, times)}  # s, per repeat

    best = {}  # workload key -> best measured cost (s); failed records cost FAILED_COST
    for inp, res in auto_scheduler.RecordReader(args.log):
        key = inp.task.workload_key
        best[key] = min(best.get(key, FAILED_COST), measured_cost(res))
    task_names = {_function(t.desc): t for t in workload.tasks}
    rows = defaultdict(lambda: {"calls": 0, "seconds": 0.0})
    for n in nodes:
        fn = _function(n["attrs"]["func_name"])
        rows[fn]["calls"] += 1
        rows[fn]["seconds"] += per_node[n["name"]]
    table = []
    for fn, r in sorted(rows.items(), key=lambda kv: -kv[1]["seconds"]):
        task = task_names.get(fn)
        est = best.get(task.workload_key) if task is not None else None
        est = est if est is not None and est < FAILED_COST else None
        table.append({"function": fn, "calls": r["calls"], "ms": r["seconds"] * 1e3,
                      "task": task is not None,
                      "task_estimate_ms": est * 1e3 * r["calls"] if est else None})
    total = sum(r["ms"] for r in table)
    tasks_ms = sum(r["ms"] for r in table if r["task"])
    estimate = sum(r["task_estimate_ms"] or 0.0 for r in table)
    print(f"{'function':58s} {'calls':>5s} {'ms':>8s} {'task est.':>9s}")
    for r in table:
        est = f"{r['task_estimate_ms']:.4f}" if r["task_estimate_ms"] else "-"
        print(f"{r['function'][:58]:58s} {r['calls']:5d} {r['ms']:8.4f} {est:>9s}")
    print(f"\nall functions {total:.3f} ms: tuned tasks {tasks_ms:.3f} ms (their estimate "
          f"{estimate:.3f} ms), other functions {total - tasks_ms:.3f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"network": args.network, "log": args.log, "rows": table,
                       "total_ms": total, "tasks_ms": tasks_ms, "estimate_ms": estimate}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
