"""The learning curve in records (issue 52) as a table, a column a point: for one seed, the
recipe trained on ``data/train`` plus 0, K (``benchmarks/record_curve.sh``) and all imported
records of each imported task, and every figure ``imported_table.py`` reads.

    .venv/bin/python benchmarks/record_curve_table.py runs/imported --seed 0 --json curve.json
"""
from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re

from imported_table import figures  # benchmarks/, beside this file
from tvm_gnn_cost.cli.common import log_files


def records(pattern: str) -> int:
    """Lines of the logs ``pattern`` matches (task files left out)."""
    return sum(sum(1 for _ in gzip.open(p, "rt")) for p in log_files(glob.glob(pattern)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = [("recipe", "0", 0)]
    for path in glob.glob(os.path.join(args.folder, "imported-k*")):
        k = int(re.search(r"imported-k(\d+)$", path).group(1))
        rows.append((f"k{k}", f"first {k} a task", records(os.path.join(path, "*.json.gz"))))
    rows.append(("imported", "all", records("data/imported/*/*.json.gz")))
    rows.sort(key=lambda r: r[2])
    table = []
    for name, label, n in rows:
        base = os.path.join(args.folder, f"{name}-s{args.seed}")
        if os.path.exists(base + ".pairs-transformers-test.json"):
            table.append({"name": name, "imported": label, "records": n, **figures(base)})
    keys = [k for k in table[0] if k.startswith(("validation", "test"))]
    print("| figure | " + " | ".join(f"{r['imported']} ({r['records']:,})" for r in table) + " |")
    print("|---|" + "---:|" * len(table))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{r[k]:.3f}" for r in table) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "rows": table}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
