"""The table of issue 52's measurement (benchmarks/imported_check.sh), and the rule written
before the runs applied to it: per model (recipe, imported) the mean and spread over seeds of
validation and test pairwise / top-1 / top-5 and of each deciding slice.

    .venv/bin/python benchmarks/imported_table.py runs/imported --json table.json
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re

import numpy as np

SLICES = {"heavy": "tasks whose best program takes 100 us or more",
          "tiling-only": "same in all three",
          "near-best": "near-best (both in the task's fastest quarter)",
          "heavy near-best": "near-best of the tasks of 100 us or more"}


def figures(base: str) -> dict:
    """Every figure of one checkpoint (``OUT/NAME-sSEED``)."""
    out = {}
    for split in ("validation", "test"):
        m = json.load(open(f"{base}.{split}.json"))["gnn"]["all"]
        for k in ("pairwise", "top1", "top5"):
            out[f"{split} {k}"] = m[k]
        pairs = json.load(open(f"{base}.pairs-{split}.json"))["pairs"]["GNN"]
        trans = json.load(open(f"{base}.pairs-transformers-{split}.json"))["pairs"]["GNN"]
        for name, key in SLICES.items():
            out[f"{split} {name}"] = pairs[key]["accuracy"]
        out[f"{split} transformer tasks"] = trans["all"]["accuracy"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--models", default="recipe,imported")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    models = args.models.split(",")
    runs = {m: {} for m in models}
    for m in models:
        for path in sorted(glob.glob(os.path.join(args.folder, f"{m}-s*.pairs-transformers-test.json"))):
            seed = int(re.search(r"-s(\d+)\.", path).group(1))
            runs[m][seed] = figures(path[:-len(".pairs-transformers-test.json")])
    keys = list(next(iter(runs[models[0]].values())))
    table = {m: {k: [runs[m][s][k] for s in sorted(runs[m])] for k in keys} for m in models}
    base, new = models[0], models[1]
    print(f"| figure | {base}: mean [seeds] | {new}: mean [seeds] | change | {base}'s spread |")
    print("|---|---|---|---:|---:|")
    decision = {"pairwise": None, "slices": {}}
    for k in keys:
        a, b = np.array(table[base][k]), np.array(table[new][k])
        change, spread = b.mean() - a.mean(), a.max() - a.min()
        print(f"| {k} | {a.mean():.3f} [{', '.join(f'{x:.3f}' for x in a)}] | {b.mean():.3f} "
              f"[{', '.join(f'{x:.3f}' for x in b)}] | {change:+.3f} | {spread:.3f} |")
        if k == "validation pairwise":
            decision["pairwise"] = change
        elif k.startswith("validation ") and not k.endswith(("top1", "top5")):
            decision["slices"][k[len("validation "):]] = (change, spread)
    lifted = [s for s, (c, _) in decision["slices"].items() if c >= 0.03]
    falls = [s for s, (c, sp) in decision["slices"].items() if c < -sp]
    pairwise_falls = decision["pairwise"] < -(np.ptp(table[base]["validation pairwise"]))
    adopt = decision["pairwise"] >= 0.02 or (lifted and not falls and not pairwise_falls)
    print(f"\nvalidation pairwise {decision['pairwise']:+.3f} (bar +0.02); slices lifted by "
          f">= 0.03: {lifted or 'none'}; slices falling by more than the spread: "
          f"{falls or 'none'}{'; pairwise falls by more than its spread' if pairwise_falls else ''}"
          f". Adopt: {'yes' if adopt else 'no'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": {m: {str(s): v for s, v in r.items()} for m, r in runs.items()},
                       "adopt": bool(adopt), "lifted": lifted, "falls": falls}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
