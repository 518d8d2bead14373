"""Issue 51's CNN check: do CNNs keep their lead over torch with today's build? The test CNN
and the MobileNetV3 blocks, each tuned by ``tvm-gnn-cost tune`` with the default model
(``--trials-per-task 64``, one seed unless ``--seeds``), exported, then every library and torch
eager timed in turns, each in a process of its own (``process_turns.py``)::

    PYTHONPATH=benchmarks/models .venv/bin/python benchmarks/cnn_check.py --out runs/cnn-check

Writes OUT/summary.md and OUT/results.json; a finished seed is reused.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from bench_transformers import tune
from process_turns import time_in_processes
from tvm_gnn_cost.threads import use_every_core

NETWORKS = ("cnn", "mobilenetv3_block")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--trials-per-task", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    use_every_core()
    os.makedirs(args.out, exist_ok=True)
    results, lines = {}, ["| network | built (ms), median [seeds] | torch eager (ms) | "
                          "built / torch | estimate / built |", "|---|---|---:|---:|---:|"]
    for net in NETWORKS:
        spec = {"args": ["--network", f"unseen:{net}"]}
        runs = [tune(net, spec, s, args.trials_per_task, args.out, []) for s in range(args.seeds)]
        contenders = {f"seed{r['seed']}": ["tvm", r["lib"]] for r in runs}
        contenders["torch"] = ["torch", f"unseen:{net}"]
        timed = time_in_processes(contenders, args.rounds)
        built = [timed[f"seed{r['seed']}"] for r in runs]
        b, est = float(np.median(built)), float(np.median([r["estimate_ms"] for r in runs]))
        results[net] = {"runs": runs, "timed": timed}
        lines.append(f"| {net} | {b:.3f} [{', '.join(f'{v:.3f}' for v in built)}] | "
                     f"{timed['torch']:.3f} | {b / timed['torch']:.2f} | {est / b:.2f} |")
        print(lines[-1], flush=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
