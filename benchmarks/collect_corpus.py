"""Collect the corpus of issue 21: random programs of every task of the networks of
``tvm_gnn_cost.workloads.corpus``, measured as labels (``ansor.measure.LABELS``), one plain
Ansor log per network in ``OUT/SPLIT/NAME.json`` with its task file.

    .venv/bin/python benchmarks/collect_corpus.py --split test validation train --out data/raw/corpus
    .venv/bin/python benchmarks/collect_corpus.py --pack --out data/raw/corpus   # -> data/SPLIT/

Resumable: a finished network is skipped, an interrupted one continues where it stopped
(``collect`` measures only the programs missing); run it on every host you get, each host
into its own ``--out`` (the records name their target). Networks whose logs are in ``data/``
(the first dataset) or in ``--data`` already are left out. ``--pack`` gzips finished logs and
task files into ``--data``'s ``SPLIT/``. Each network is collected in its own process: TVM can
abort one.
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import time

from tvm_gnn_cost.ansor.taskfile import tasks_path
from tvm_gnn_cost.workloads.corpus import NETWORKS, SPLITS


def _todo(args):
    for i, net in enumerate(NETWORKS):
        if net.split not in args.split or (args.only and net.name not in args.only):
            continue
        if any(os.path.exists(net.log(root)) for root in {"data", args.data}):
            continue  # shipped in the first dataset, or packed already
        yield i, net


def collect(args) -> None:
    for i, net in _todo(args):
        out = os.path.join(args.out, net.split, net.name + ".json")
        if os.path.exists(out + ".done"):
            continue
        cmd = [sys.executable, "-m", "tvm_gnn_cost", "collect", *net.collect_args(),
               "--programs-per-task", str(args.per_task), "--out", out,
               "--seed", str(args.seed + 100 * i if net.seed is None else net.seed),
               *args.runner]
        print(f"[{time.strftime('%H:%M:%S')}] {net.split}/{net.name}: {' '.join(cmd[3:])}",
              flush=True)
        start = time.time()
        rc = subprocess.call(cmd)
        if rc:
            print(f"{net.name}: collect exited {rc}; rerun to continue", flush=True)
            continue
        with open(out + ".done", "w") as f:
            f.write(f"{time.time() - start:.0f} s\n")


def pack(args) -> None:
    for _, net in _todo(args):
        out = os.path.join(args.out, net.split, net.name + ".json")
        if not os.path.exists(out + ".done"):
            continue
        dest = net.log(args.data)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        for src, dst in ((out, dest), (tasks_path(out), tasks_path(dest) + ".gz")):
            with open(src, "rb") as f, gzip.GzipFile(dst, "wb", 9, mtime=0) as g:
                shutil.copyfileobj(f, g)
        print(f"packed {dest}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    p.add_argument("--only", nargs="*", default=[], help="these networks only (names)")
    p.add_argument("--out", default="data/raw/corpus", help="folder of the plain logs")
    p.add_argument("--data", default="data", help="the shipped dataset's folder")
    p.add_argument("--per-task", type=int, default=48, help="random programs a task")
    p.add_argument("--seed", type=int, default=3000, help="sampling seed of the first network")
    p.add_argument("--pack", action="store_true", help="gzip finished logs into --data")
    args, rest = p.parse_known_args()
    args.runner = rest  # the rest (--repeat, --min-repeat-ms ...) goes to collect
    pack(args) if args.pack else collect(args)


if __name__ == "__main__":
    main()
