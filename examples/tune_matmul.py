"""Tune one matmul with the GNN cost model, then build and time the best program.

    python examples/tune_matmul.py --trials 64 --size 512
"""
import argparse
import logging

import numpy as np
import tvm
from tvm import auto_scheduler

from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune
from tvm_gnn_cost.experiments.registry import choose
from tvm_gnn_cost.workloads.targets import host_target


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=256, help="n = m = k")
    p.add_argument("--trials", type=int, default=64)
    p.add_argument("--model", default="gnn", choices=["gnn", "xgb", "random"])
    p.add_argument("--log", default="matmul.json", help="Ansor log to append to")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--full-search", action="store_true", help="Ansor's default search size")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    target = host_target()
    n = args.size
    task = auto_scheduler.SearchTask(func="tvm_gnn_cost.matmul", args=(n, n, n), target=target)
    per_round = min(16, args.trials)
    choice = choose(args.model, target)  # gnn: with the shipped prior where the CPU fits it
    model = choice.make(args.seed, [task], args.trials, per_round)
    curve = tune([task], model, args.trials, args.log, seed=args.seed,
                 search_params=None if args.full_search else SMALL_SEARCH,
                 measures_per_round=per_round, first_round=choice.first_round(per_round))
    for trials, seconds, latency in zip(curve.trials, curve.seconds, curve.latency):
        print(f"trials {trials:4d}  {seconds:7.1f} s  best {latency * 1e3:8.4f} ms")

    sch, tensors = task.apply_best(args.log)
    func = tvm.build(sch, tensors, target)
    dev = tvm.cpu()
    a = tvm.nd.array(np.random.rand(n, n).astype("float32"), dev)
    b = tvm.nd.array(np.random.rand(n, n).astype("float32"), dev)
    c = tvm.nd.empty((n, n), "float32", dev)
    func(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-3)
    ms = func.time_evaluator(func.entry_name, dev, number=20, repeat=5)(a, b, c).median * 1e3
    gflops = 2 * n**3 / (ms * 1e-3) / 1e9
    print(f"best program: {ms:.4f} ms ({gflops:.1f} GFLOP/s), result checked against numpy")


if __name__ == "__main__":
    main()
