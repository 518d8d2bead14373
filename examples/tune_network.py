"""Tune resnet-18 (NHWC, from relay.testing) with the GNN cost model, then build it with the
best schedules, check it against an untuned build, and time it.

    python examples/tune_network.py --trials 480 --log resnet18.json
"""
import argparse
import logging

import tvm

from tvm_gnn_cost.ansor.build import build_and_time
from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune
from tvm_gnn_cost.experiments.registry import choose
from tvm_gnn_cost.workloads.networks import load_workload
from tvm_gnn_cost.workloads.targets import host_target


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=480, help="total over all tasks")
    p.add_argument("--model", default="gnn", choices=["gnn", "xgb", "random"])
    p.add_argument("--target", default=None, help="TVM target (default: host CPU with -mcpu)")
    p.add_argument("--log", default="resnet18.json")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--full-search", action="store_true", help="Ansor's default search size")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    target = tvm.target.Target(args.target) if args.target else host_target()
    # the tasks as Ansor extracts them, with the layout rewrite off where TVM 0.19 breaks it
    net = load_workload("resnet-18", target)
    print(f"{len(net.tasks)} tasks")
    choice = choose(args.model, target)
    model = choice.make(args.seed, net.tasks, args.trials, 16)
    curve = tune(net.tasks, model, args.trials, args.log, weights=net.weights, seed=args.seed,
                 search_params=None if args.full_search else SMALL_SEARCH,
                 measures_per_round=16, first_round=choice.first_round(16))
    print(f"tuned {curve.trials[-1]} trials in {curve.wall:.0f} s; "
          f"estimated latency {curve.final * 1e3:.3f} ms")
    report = build_and_time(net, args.log, target)  # raises if the outputs differ
    print(f"resnet-18 end to end: {report.latency * 1e3:.2f} ms (measured; outputs match "
          f"{report.reference} within {report.error:.1e})")


if __name__ == "__main__":
    main()
