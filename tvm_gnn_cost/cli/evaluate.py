"""``tvm-gnn-cost evaluate``: accuracy of a pretrained GNN (and XGBoost) on held-out logs."""
from __future__ import annotations

import argparse
import json

from .common import add_trust_pickle, log_files, untrusted_pickle_is_an_error


def add_parser(sub) -> argparse.ArgumentParser:
    ev = sub.add_parser("evaluate",
                        help="accuracy of a pretrained GNN (and XGBoost) on held-out logs")
    ev.add_argument("logs", nargs="+", help="held-out Ansor logs")
    ev.add_argument("--model", required=True, help="GNN checkpoint")
    ev.add_argument("--baseline", choices=["xgb", "none"], default="xgb")
    ev.add_argument("--train", nargs="*", default=[],
                    help="the GNN's training logs: XGBoost is trained on them, and held-out "
                         "tasks that they hold too are left out")
    ev.add_argument("--include-seen", action="store_true",
                    help="keep the tasks that the training logs hold too (a fit check, not "
                         "held-out accuracy)")
    ev.add_argument("--out", default=None, help="also write the table to this markdown file")
    ev.add_argument("--json", default=None,
                    help="also write the metrics, overall and per task, to this JSON file")
    add_trust_pickle(ev)
    ev.add_argument("-v", "--verbose", action="store_true")
    return ev


def run(args) -> int:
    from tvm import auto_scheduler

    from ..ansor.cost_model import GNNCostModel
    from ..offline.evaluate import (as_json, drop_seen, gnn_scorer, load_groups, read_logs,
                                    score, table, xgb_scorer)

    args.logs, args.train = log_files(args.logs), log_files(args.train)
    if not args.logs:
        raise SystemExit("error: only task files given; pass the held-out logs (x.json.gz)")
    if args.baseline == "xgb" and not args.train:
        raise SystemExit("error: --baseline xgb needs --train LOGS (the GNN's training logs)")
    model = GNNCostModel()
    model.load(args.model)
    with untrusted_pickle_is_an_error():
        train_inputs, train_results = read_logs(args.train, args.trust_pickle)
        groups = load_groups(args.logs, model.rebuilder, args.trust_pickle)
    if not args.include_seen:
        groups = drop_seen(groups, train_inputs)
    if not groups:
        raise SystemExit(f"error: no usable record of a task outside the training logs in "
                         f"{args.logs}; --include-seen evaluates on training tasks too")
    results = {"gnn": score(groups, gnn_scorer(model))}
    if args.baseline == "xgb":
        xgb = auto_scheduler.XGBModel(seed=0, num_warmup_sample=1)  # train on whatever is given
        xgb.update(train_inputs, train_results)
        results["xgb"] = score(groups, xgb_scorer(xgb))
    text = table(results)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(as_json(results), f, indent=1)
    return 0
