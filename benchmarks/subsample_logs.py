"""Copies of Ansor logs holding at most K records of each task (the first K, in log order),
task files beside them: how held-out accuracy grows with the programs a task.

    .venv/bin/python benchmarks/subsample_logs.py 24 /tmp/sub24 data/train/*.json.gz
    TRAIN="/tmp/sub24/*.json.gz" bash benchmarks/sweep_pretrain.sh sub24 "" 0 1 2
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil


from tvm_gnn_cost.ansor.taskfile import tasks_path


def _open(path: str, mode: str):
    return gzip.open(path, mode) if path.endswith(".gz") else open(path, mode)


def subsample(log: str, out_dir: str, k: int) -> int:
    """Write the first ``k`` records of each task (workload and target) of ``log`` into
    ``out_dir`` under the same name, with its task file; return how many were kept."""
    seen: dict = {}
    kept = []
    with _open(log, "rt") as f:
        for line in f:
            key = tuple(json.loads(line)["i"][0][:2])
            seen[key] = seen.get(key, 0) + 1
            if seen[key] <= k:
                kept.append(line)
    with _open(os.path.join(out_dir, os.path.basename(log)), "wt") as f:
        f.writelines(kept)
    for tasks in (tasks_path(log) + ".gz", tasks_path(log)):
        if os.path.exists(tasks):
            shutil.copy(tasks, out_dir)
    return len(kept)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("k", type=int, help="records kept a task")
    p.add_argument("out", help="folder for the copies")
    p.add_argument("logs", nargs="+")
    args = p.parse_args()
    if args.k < 1:
        p.error("k must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    for log in args.logs:
        print(f"{os.path.basename(log)}: {subsample(log, args.out, args.k)} records")


if __name__ == "__main__":
    main()
