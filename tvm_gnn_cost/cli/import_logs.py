"""``tvm-gnn-cost import``: foreign Ansor logs into the project's dataset, each record's task
rebuilt here and its steps replayed (:mod:`tvm_gnn_cost.ansor.importer`)."""
from __future__ import annotations

import argparse
import os


def add_parser(sub) -> argparse.ArgumentParser:
    im = sub.add_parser("import", help="import Ansor logs written elsewhere into a dataset")
    im.add_argument("logs", nargs="+", help="Ansor logs, as TVM writes them (.json, .json.gz)")
    im.add_argument("--out", required=True,
                    help="folder for the imported logs (NAME.json.gz, each with its task file "
                         "and NAME.json.gz.import.json, the report)")
    im.add_argument("--network", default=None,
                    help="the network the logs tuned, as tune takes it (a model file, a "
                         "package.module:function, a built-in network): its tasks are the "
                         "first candidates")
    im.add_argument("--batch-size", type=int, default=1, help="of a built-in --network")
    im.add_argument("--data", default=None, metavar="DIR",
                    help="also match the tasks of the task files under DIR (the project's "
                         "registered networks: data/)")
    im.add_argument("--no-operators", action="store_true",
                    help="do not rebuild a task as a single operator recognized from its "
                         "shapes (matmul, dense, batch_matmul)")
    im.add_argument("--force", action="store_true",
                    help="import a log again though its output exists")
    im.add_argument("-v", "--verbose", action="store_true")
    return im


def run(args) -> int:
    from ..ansor.importer import TaskMatcher, import_log, shipped_tasks
    from ..ansor.logs import read_log

    for log in args.logs:
        if not os.path.exists(log):
            raise SystemExit(f"error: no log at {log}")
    matcher = TaskMatcher(operators=not args.no_operators)
    if args.network:  # first: where shapes match several tasks, the network's are tried first
        matcher.add(_network_tasks(args, read_log(args.logs[0], n_lines=1)[0]))
    if args.data:
        matcher.add(shipped_tasks(args.data))
    os.makedirs(args.out, exist_ok=True)
    done = 0
    for log in args.logs:
        name = os.path.basename(log)
        name = name[:-3] if name.endswith(".gz") else name
        out = os.path.join(args.out, os.path.splitext(name)[0] + ".json.gz")
        if os.path.exists(out) and not args.force:
            print(f"{log}: already imported to {out} (--force imports it again)")
            continue
        report = import_log(log, out, matcher)
        print(report.describe(), flush=True)
        done += report.replayed
    print(f"{done} records imported into {args.out}")
    return 0


def _network_tasks(args, first):
    """The tasks of ``--network``, extracted for the target of the logs' first record."""
    from ..workloads.networks import load_workload

    if not first:
        raise SystemExit(f"error: {args.logs[0]} has no record to take the target from")
    target = first[0].task.target
    try:
        workload = load_workload(args.network, target, args.batch_size, layout=None)
    except (ValueError, FileNotFoundError) as err:
        raise SystemExit(f"error: --network {args.network}: {err}") from None
    return workload.tasks
