"""Contenders timed in turns, each in a process of its own.

Timed in one process, TVM's, torch's and ONNX Runtime's thread pools share the cores between
turns (a pool's threads spin or stay pinned after its turn), so each one's time depends on
which ran before it. Here each contender lives in its own process, as a user runs one
framework, and waits on a pipe while the others run; ``time_side_by_side`` still gives them
the same stretch of the host's drift. As a script it is one contender::

    python benchmarks/process_turns.py tvm LIB.so          # its inputs from LIB.so.json
    python benchmarks/process_turns.py torch MODULE:FUNCTION   # returns (module, input)
    python benchmarks/process_turns.py ort MODEL.onnx SHAPE    # SHAPE: 1,3,64,64

then reads ``NUMBER REPEAT MIN_REPEAT_MS`` lines and answers each with a JSON list of seconds.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from typing import Dict, List

import numpy as np

from tvm_gnn_cost.threads import use_every_core


def process_timer(argv: List[str]):
    """A ``harness.Timer`` whose runs happen in a child process started with ``argv`` (the
    arguments of this script); the child lives as long as the returned timer."""
    child = subprocess.Popen([sys.executable, os.path.abspath(__file__), *argv],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ready = child.stdout.readline()
    if ready.strip() != "ready":
        raise RuntimeError(f"{' '.join(argv)} did not start: {ready!r}")

    def timer(number: int, repeat: int, min_repeat_ms: int) -> List[float]:
        child.stdin.write(f"{number} {repeat} {min_repeat_ms}\n")
        child.stdin.flush()
        return json.loads(child.stdout.readline())

    timer.process = child
    return timer


def time_in_processes(contenders: Dict[str, List[str]], rounds: int = 30) -> Dict[str, float]:
    """Median milliseconds of each contender (label: this script's arguments), timed in turns
    by ``harness.time_side_by_side``, each in a process of its own."""
    from tvm_gnn_cost.workloads.harness import time_side_by_side

    timers = {}
    try:
        for label, argv in contenders.items():
            timers[label] = process_timer(argv)
        return {k: v * 1e3 for k, v in time_side_by_side(timers, rounds=rounds).items()}
    finally:
        for t in timers.values():
            t.process.stdin.close()
            t.process.wait()


def _contender(kind: str, args: List[str]):
    """``harness.Timer`` of one contender, as ``tune`` times a build and its framework."""
    from tvm_gnn_cost.workloads.harness import graph_timer, reference_timer

    rng = np.random.default_rng(0)
    if kind == "tvm":
        import tvm

        inputs = json.load(open(args[0] + ".json"))["inputs"]
        feeds = {n: rng.uniform(size=s["shape"]).astype(s["dtype"]) for n, s in inputs.items()}
        return graph_timer(tvm.runtime.load_module(args[0]), tvm.cpu(), feeds)
    if kind == "torch":
        from tvm_gnn_cost.workloads.models import torch_reference

        module_name, function = args[0].split(":")
        module, x = getattr(importlib.import_module(module_name), function)()
        feeds = {"x": rng.uniform(size=tuple(x.shape)).astype("float32")}
        return reference_timer(torch_reference(module.eval(), ["x"]), feeds)
    if kind == "ort":
        import onnxruntime

        session = onnxruntime.InferenceSession(args[0], providers=["CPUExecutionProvider"])
        feeds = {session.get_inputs()[0].name:
                 rng.uniform(size=[int(d) for d in args[1].split(",")]).astype("float32")}
        return reference_timer(lambda f: session.run(None, f), feeds)
    raise SystemExit(f"unknown contender {kind!r}: tvm, torch or ort")


def main() -> int:
    use_every_core()
    timer = _contender(sys.argv[1], sys.argv[2:])
    print("ready", flush=True)
    for line in sys.stdin:
        number, repeat, min_repeat_ms = map(int, line.split())
        print(json.dumps(timer(number, repeat, min_repeat_ms)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
