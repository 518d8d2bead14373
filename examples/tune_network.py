"""Tune resnet-18 (NHWC, from relay.testing) with the GNN cost model, then build and time it.

    python examples/tune_network.py --trials 480 --log resnet18.json
"""
import argparse
import logging
import os

os.environ.setdefault("TOPHUB_LOCATION", "NONE")

import numpy as np  # noqa: E402
import tvm  # noqa: E402
from tvm import auto_scheduler, relay  # noqa: E402
from tvm.contrib import graph_executor  # noqa: E402
from tvm.relay import testing  # noqa: E402

from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, make_model, tune  # noqa: E402
from tvm_gnn_cost.workloads.operators import host_target  # noqa: E402


def resnet18(batch_size=1):
    mod, params = testing.resnet.get_workload(num_layers=18, batch_size=batch_size, layout="NHWC",
                                              image_shape=(224, 224, 3))
    return mod, params, (batch_size, 224, 224, 3)


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
    mod, params, shape = resnet18()
    tasks, weights = auto_scheduler.extract_tasks(mod["main"], params, target)
    print(f"{len(tasks)} tasks")
    model = make_model(args.model, args.seed, tasks, args.trials, 16)
    curve = tune(tasks, model, args.trials, args.log, weights=weights, seed=args.seed,
                 search_params=None if args.full_search else SMALL_SEARCH,
                 measures_per_round=16)
    print(f"tuned {curve.trials[-1]} trials in {curve.wall:.0f} s; "
          f"estimated latency {curve.final * 1e3:.3f} ms")

    with auto_scheduler.ApplyHistoryBest(args.log):
        with tvm.transform.PassContext(opt_level=3,
                                       config={"relay.backend.use_auto_scheduler": True}):
            lib = relay.build(mod, target=target, params=params)
    dev = tvm.device(str(target), 0)
    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input("data", np.random.uniform(size=shape).astype("float32"))
    timer = module.module.time_evaluator("run", dev, number=5, repeat=3)
    print(f"resnet-18 end to end: {np.median(timer().results) * 1e3:.2f} ms (measured)")


if __name__ == "__main__":
    main()
