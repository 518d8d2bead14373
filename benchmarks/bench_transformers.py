"""Issue 51's benchmark: transformers a user brings, tuned with the default model, built, and
timed in turns against torch eager and ONNX Runtime on the same inputs and cores, each in a
process of its own.

Networks (``benchmarks/models/transformers.py``, none in a training log): a small ViT brought
as ONNX with a dynamic batch, a BERT-style encoder brought as TorchScript, the test set's GPT
block brought as an entry point. For each network and seed, ``tvm-gnn-cost tune
--trials-per-task T --export --profile`` (the default model; its estimate, its build checked
against the framework, where the build's time goes); then every seed's library, torch eager and
ONNX Runtime (the same model exported to ONNX) timed in turns, each in a process of its own,
30 rounds (``--rounds``), on the same inputs.
A finished seed is reused; ``--fast-math`` tunes and builds with ``tune --fast-math``. Writes
OUT/results.json (for scripts) and OUT/summary.md::

    PYTHONPATH=benchmarks/models .venv/bin/python benchmarks/bench_transformers.py \\
        --seeds 3 --trials-per-task 64 --out runs/transformers
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

from tvm_gnn_cost.threads import use_every_core

NETWORKS = ("vit", "encoder", "gpt")
#: Each network's function in ``benchmarks/models/transformers.py``.
ENTRY_POINTS = {"vit": "vit_small", "encoder": "text_encoder", "gpt": "gpt_block"}


def prepare(out: str) -> dict:
    """Each network as the user brings it, and as ONNX for ONNX Runtime."""
    import torch

    import transformers as models
    from tvm_gnn_cost.workloads.models import trace

    specs = {}
    for name in NETWORKS:
        module, x = getattr(models, ENTRY_POINTS[name])()
        onnx = os.path.join(out, f"{name}.onnx")
        if not os.path.exists(onnx):
            torch.backends.mha.set_fastpath_enabled(False)
            torch.onnx.export(module, (x,), onnx, dynamo=False, input_names=["input"],
                              dynamic_axes={"input": {0: "batch"}})
        shape = ",".join(str(d) for d in x.shape)
        if name == "vit":  # as brought: ONNX with a dynamic batch, its shape given
            args = ["--network", onnx, "--input-shapes", f"input:[{shape}]"]
        elif name == "encoder":  # as brought: TorchScript
            path = os.path.join(out, "encoder.pt")
            if not os.path.exists(path):
                trace(module, [x]).save(path)
            args = ["--network", path, "--input-shapes", f"input0:[{shape}]"]
        else:  # as brought: an entry point
            args = ["--network", "transformers:gpt_block"]
        specs[name] = {"args": args, "module": module, "x": x, "onnx": onnx}
    return specs


def tune(name: str, spec: dict, seed: int, trials_per_task: int, out: str,
         flags: list) -> dict:
    """One seed's tune, its figures read from what it prints (kept in NAME-sSEED.txt)."""
    log = os.path.join(out, f"{name}-s{seed}.json")
    lib, text = log + ".so", log + ".txt"
    if not (os.path.exists(lib) and os.path.exists(text)):
        if os.path.exists(log):
            os.remove(log)
        done = subprocess.run([sys.executable, "-m", "tvm_gnn_cost", "tune", *spec["args"],
                               "--trials-per-task", str(trials_per_task), "--seed", str(seed),
                               "--log", log, "--export", lib, "--profile", *flags],
                              capture_output=True, text=True)
        with open(text, "w") as f:
            f.write(done.stdout + done.stderr)
        if done.returncode:
            raise SystemExit(f"{name} seed {seed} failed; see {text}")
    printed = open(text).read()
    estimate = float(re.search(r"estimated latency ([0-9.]+) ms", printed).group(1))
    built = float(re.search(r"measured latency with the best schedules: ([0-9.]+) ms",
                            printed).group(1))
    with open(log + ".profile.json") as f:
        profile = json.load(f)
    return {"seed": seed, "log": log, "lib": lib, "estimate_ms": estimate, "tune_built_ms": built,
            "untuned_ms": profile["total_ms"] - profile["tuned_ms"],
            "profile_total_ms": profile["total_ms"]}


def time_apart(name: str, spec: dict, runs: list, others: dict, rounds: int) -> dict:
    """Every seed's library, those of ``others`` (label: library), torch eager and ONNX
    Runtime, each in a process of its own (``process_turns.py``), in turns."""
    from process_turns import time_in_processes as timed

    libs = {**{f"seed{r['seed']}": r["lib"] for r in runs}, **others}
    contenders = {label: ["tvm", path] for label, path in libs.items()}
    contenders["torch"] = ["torch", f"transformers:{ENTRY_POINTS[name]}"]
    contenders["onnxruntime"] = ["ort", spec["onnx"], ",".join(str(d) for d in spec["x"].shape)]
    return timed(contenders, rounds)


def time_in_turns(name: str, spec: dict, runs: list, others: dict, rounds: int) -> dict:
    """Every seed's library, those of ``others`` (label: library), torch eager and ONNX
    Runtime on the same input, in turns, all in this process (their thread pools share the
    cores between turns: ``--timing process`` keeps them apart)."""
    import onnxruntime
    import torch
    import tvm

    from tvm_gnn_cost.workloads.harness import graph_timer, reference_timer, time_side_by_side
    from tvm_gnn_cost.workloads.models import torch_reference

    x = spec["x"].numpy()
    timers = {}
    libs = {**{f"seed{r['seed']}": r["lib"] for r in runs}, **others}
    for label, path in libs.items():
        names = list(json.load(open(path + ".json"))["inputs"])
        timers[label] = graph_timer(tvm.runtime.load_module(path), tvm.cpu(), {names[0]: x})
    torch.backends.mha.set_fastpath_enabled(True)  # torch as a user runs it
    timers["torch"] = reference_timer(torch_reference(spec["module"], ["x"]), {"x": x})
    session = onnxruntime.InferenceSession(spec["onnx"], providers=["CPUExecutionProvider"])
    timers["onnxruntime"] = reference_timer(lambda feeds: session.run(None, feeds), {"input": x})
    return {k: v * 1e3 for k, v in time_side_by_side(timers, rounds=rounds).items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--trials-per-task", type=int, default=64)
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--fast-math", action="store_true", help="tune and build with --fast-math")
    ap.add_argument("--against", default=None, metavar="DIR",
                    help="also time the libraries of an earlier run (its OUT) in the same turns")
    ap.add_argument("--timing", choices=("process", "same"), default="process",
                    help="time each library and framework in a process of its own (default) "
                         "or all in this one")
    ap.add_argument("--rounds", type=int, default=30,
                    help="rounds of timing in turns (each times every contender 3 x 100 ms)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    use_every_core()  # the libraries timed here run as `tune` timed them
    os.makedirs(args.out, exist_ok=True)
    specs = prepare(args.out)
    results = {}
    for seed in range(args.seeds):  # seeds outer: the host's drift hits every network alike
        for name in args.networks.split(","):
            results.setdefault(name, {"runs": []})["runs"].append(
                tune(name, specs[name], seed, args.trials_per_task, args.out,
                     ["--fast-math"] if args.fast_math else []))
            print(f"{name} seed {seed}: {results[name]['runs'][-1]}", flush=True)
    lines = ["| network | built (ms), median [seeds] | torch eager (ms) | ONNX Runtime (ms) | "
             "built / torch | built / ORT | estimate (ms) | estimate / built | no-task "
             "functions (ms) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, res in results.items():
        others = {}
        if args.against:
            for r in res["runs"]:
                path = os.path.join(args.against, f"{name}-s{r['seed']}.json.so")
                others[f"against-seed{r['seed']}"] = path
        timing = time_apart if args.timing == "process" else time_in_turns
        res["timed"] = timing(name, specs[name], res["runs"], others, args.rounds)
        built = [res["timed"][f"seed{r['seed']}"] for r in res["runs"]]
        b = float(np.median(built))
        est = float(np.median([r["estimate_ms"] for r in res["runs"]]))
        res.update(built_ms=b, torch_ms=res["timed"]["torch"],
                   onnxruntime_ms=res["timed"]["onnxruntime"], estimate_ms=est)
        lines.append(f"| {name} | {b:.3f} [{', '.join(f'{v:.3f}' for v in built)}] | "
                     f"{res['torch_ms']:.3f} | {res['onnxruntime_ms']:.3f} | "
                     f"{b / res['torch_ms']:.2f} | {b / res['onnxruntime_ms']:.2f} | {est:.3f} | "
                     f"{est / b:.2f} | "
                     f"{np.median([r['untuned_ms'] for r in res['runs']]):.3f} |")
        if others:
            a = float(np.median([res["timed"][k] for k in others]))
            res["against_ms"] = a
            lines.append(f"| {name}, {args.against}, same seeds | {a:.3f} | | | "
                         f"{a / res['torch_ms']:.2f} | {a / res['onnxruntime_ms']:.2f} | | | |")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    table = "\n".join(lines)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
