"""`make demo`: tune the built-in workloads with the GNN and with Ansor's XGBModel, same budget
and seed, and print both search curves.

    python examples/demo.py --trials 160
"""
import argparse
import logging
import math
import os
import tempfile
import time

from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, make_model, tune
from tvm_gnn_cost.workloads.operators import demo_tasks


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=160, help="total per model, over all tasks")
    p.add_argument("--models", default="gnn,xgb")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="folder for the logs (default: a temp folder)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    out = args.out or tempfile.mkdtemp(prefix="tvm-gnn-demo-")
    os.makedirs(out, exist_ok=True)

    tasks = demo_tasks()
    print("workloads:", ", ".join(t.desc or t.workload_key for t in tasks))
    curves = {}
    for name in args.models.split(","):
        start = time.time()
        print(f"tuning with {name} ({args.trials} trials) ...", flush=True)
        curves[name] = tune(tasks, make_model(name, seed=args.seed), args.trials,
                            os.path.join(out, f"{name}.json"), seed=args.seed,
                            search_params=SMALL_SEARCH, measures_per_round=8, name=name)
        print(f"  done in {time.time() - start:.0f} s", flush=True)

    names = list(curves)
    print("\nbest estimated latency (ms, sum over tasks) against measured trials")
    print("| trials | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for t in sorted({t for c in curves.values() for t in c.trials}):
        row = []
        for n in names:
            seen = [lat for k, lat in zip(curves[n].trials, curves[n].latency) if k <= t]
            row.append(f"{seen[-1] * 1e3:.4f}" if seen and math.isfinite(seen[-1]) else "-")
        print(f"| {t} | " + " | ".join(row) + " |")
    print(f"\nlogs in {out}")


if __name__ == "__main__":
    main()
