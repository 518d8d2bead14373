"""``tvm-gnn-cost plot``: redraw the plot and summary of a ``compare`` folder."""
from __future__ import annotations

import argparse
import json
import os


def add_parser(sub) -> argparse.ArgumentParser:
    pl = sub.add_parser("plot", help="redraw the plot and summary of a compare folder")
    pl.add_argument("out", help="folder written by compare")
    pl.add_argument("--reference", default=None,
                    help="model whose final latency is the bar (default: compare's, xgb)")
    return pl


def run(args) -> int:
    from ..curves import read_curves
    from ..report import write_report

    curves = read_curves(args.out)
    meta = {"title": "", "note": "", "reference": "xgb"}
    path = os.path.join(args.out, "compare.json")
    if os.path.exists(path):
        with open(path) as f:
            meta.update(json.load(f))
    print(write_report(curves, args.out, meta["title"], args.reference or meta["reference"],
                       meta["note"]))
    return 0
