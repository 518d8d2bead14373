"""Seconds a MetaSchedule build batch takes: MetaSchedule's LocalBuilder against the project's.

    .venv-modern/bin/python benchmarks/bench_ms_build.py   # apache-tvm 0.27
    .venv/bin/python benchmarks/bench_ms_build.py          # TVM 0.19

Builds the same batch of scheduled 128^3 matmuls (parallel outer loop, vectorized inner) with
``ms.builder.LocalBuilder()`` and with :func:`tvm_gnn_cost.metaschedule.builder.local_builder`, each
``--repeats`` times, and prints the median seconds a batch and their ratio. Each batch starts new
builder processes, as MetaSchedule's LocalBuilder always does.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TOPHUB_LOCATION", "NONE")

import tvm
from tvm import te

from tvm_gnn_cost.workloads import operators
from tvm_gnn_cost.metaschedule.cost_model import ms
from tvm_gnn_cost.metaschedule.builder import local_builder
from tvm_gnn_cost.tir.compat import MODERN, Schedule
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores


def scheduled_matmul():
    sch = Schedule(tvm.IRModule({"main": te.create_prim_func(operators.matmul(128, 128, 128))}))
    block = (sch.get_sblock if MODERN else sch.get_block)("C")
    i, j, _ = sch.get_loops(block)
    sch.parallel(i)
    sch.vectorize(sch.split(j, [None, 16])[1])
    return sch.mod


def batch_seconds(builder, inputs, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        results = builder.build(inputs)
        times.append(time.perf_counter() - start)
        errors = [r.error_msg for r in results if r.error_msg]
        if errors:
            raise SystemExit(f"a build failed: {errors[0][:300]}")
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4, help="programs a batch")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    target = tvm.target.Target(with_num_cores(host_target()))
    inputs = [ms.builder.BuilderInput(scheduled_matmul(), target)] * args.batch
    print(f"TVM {tvm.__version__}, {args.batch} builds a batch, {target}")
    theirs = batch_seconds(ms.builder.LocalBuilder(), inputs, args.repeats)
    ours = batch_seconds(local_builder(), inputs, args.repeats)
    print(f"MetaSchedule's LocalBuilder: {theirs:.2f} s a batch (median of {args.repeats})")
    print(f"msbuild.local_builder():     {ours:.2f} s a batch; {theirs / ours:.1f}x faster")


if __name__ == "__main__":
    main()
