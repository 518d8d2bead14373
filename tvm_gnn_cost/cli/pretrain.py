"""``tvm-gnn-cost pretrain``: train the GNN offline on Ansor logs.

The recipe is :class:`~tvm_gnn_cost.core.config.PretrainRecipe` (the shipped checkpoint's);
a flag overrides its field only when the user gives it. The checkpoint keeps the whole recipe,
and the results (epochs, validation accuracy by epoch, records) go to a JSON file for scripts.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace

from ..core.config import LOSSES, READOUTS, PretrainRecipe, config_to_dict
from .common import add_trust_pickle, log_files, untrusted_pickle_is_an_error

#: flag -> (recipe section, field); a flag left out keeps the recipe's value.
RECIPE_FLAGS = {
    "hidden": ("model", "hidden"),
    "layers": ("model", "layers"),
    "readout": ("model", "readout"),
    "lowered": ("featurizer", "lowered"),
    "step_tokens": ("featurizer", "step_tokens"),
    "loop_footprints": ("featurizer", "loop_footprints"),
    "lr": ("trainer", "lr"),
    "dropout": ("model", "dropout"),
    "weight_decay": ("trainer", "weight_decay"),
    "loss": ("trainer", "loss"),
    "epochs": ("pretrain", "epochs"),
    "patience": ("pretrain", "patience"),
    "per_task": ("pretrain", "per_task"),
    "val_fraction": ("pretrain", "val_fraction"),
    "shard_size": ("pretrain", "shard_size"),
    "average_epochs": ("pretrain", "average_epochs"),
    "input_noise": ("model", "input_noise"),
}


def add_parser(sub) -> argparse.ArgumentParser:
    d = PretrainRecipe()
    pt = sub.add_parser("pretrain", help="train the GNN offline on Ansor logs")
    pt.add_argument("logs", nargs="+", help="Ansor logs (task files beside them are loaded)")
    pt.add_argument("--out", required=True, help="checkpoint to write")
    pt.add_argument("--results", default=None,
                    help="results as JSON (default: the checkpoint's name with .json)")
    pt.add_argument("--epochs", type=int, help=f"at most (recipe: {d.pretrain.epochs})")
    pt.add_argument("--patience", type=int,
                    help=f"epochs without a better validation accuracy before stopping "
                         f"(recipe: {d.pretrain.patience})")
    pt.add_argument("--hidden", type=int,
                    help=f"width of the GNN's layers and readout (recipe: {d.model.hidden})")
    pt.add_argument("--layers", type=int,
                    help=f"graph convolutions along the data flow (recipe: {d.model.layers})")
    pt.add_argument("--readout", choices=READOUTS,
                    help=f"how node embeddings pool into one per program (recipe: "
                         f"{d.model.readout})")
    pt.add_argument("--lowered", action="store_const", const=True,
                    help="also feed the GNN Ansor's per-store features of each lowered program "
                         "(costs a lowering per program; an experiment, see "
                         "benchmarks/results/representation.md)")
    pt.add_argument("--step-tokens", type=int, metavar="K",
                    help="also feed each node the first K transform steps of its stage as "
                         "tokens (an experiment, see benchmarks/results/representation.md)")
    pt.add_argument("--loop-footprints", action="store_const", const=True,
                    help="also feed each node the elements its accesses touch inside each of "
                         "its loops (an experiment, see benchmarks/results/representation.md)")
    pt.add_argument("--lr", type=float, help=f"learning rate (recipe: {d.trainer.lr})")
    pt.add_argument("--dropout", type=float, help=f"(recipe: {d.model.dropout})")
    pt.add_argument("--weight-decay", type=float, help=f"(recipe: {d.trainer.weight_decay})")
    pt.add_argument("--loss", choices=LOSSES,
                    help="training loss; pairwise+logmse learns log throughput (comparable "
                         f"across tasks) instead of throughput normalized per task (recipe: "
                         f"{d.trainer.loss})")
    pt.add_argument("--per-task", type=int,
                    help="programs of one task kept together in a training batch, for the "
                         f"ranking loss's same-task pairs (0: random batches; recipe: "
                         f"{d.pretrain.per_task})")
    pt.add_argument("--average-epochs", type=int, metavar="K",
                    help="keep the mean of the last K epochs' weights (an experiment, see "
                         f"benchmarks/results/representation.md; recipe: "
                         f"{d.pretrain.average_epochs})")
    pt.add_argument("--input-noise", type=float, metavar="SIGMA",
                    help="Gaussian noise on the standardized node features while training "
                         f"(an experiment; recipe: {d.model.input_noise})")
    pt.add_argument("--val-fraction", type=float,
                    help=f"share of tasks held out (recipe: {d.pretrain.val_fraction})")
    pt.add_argument("--seed", type=int, default=0, help="seeds the weights, split and batches")
    pt.add_argument("--nproc", type=int, default=1,
                    help="train data-parallel in this many processes (DDP over gloo)")
    pt.add_argument("--workers", type=int, default=1,
                    help="processes that read and featurize the logs, one log each")
    pt.add_argument("--shard-size", type=int,
                    help=f"records per shard; training holds {d.pretrain.mix} shards in memory "
                         f"at a time (recipe: {d.pretrain.shard_size})")
    pt.add_argument("--cache", default=None,
                    help="folder for the featurized shards (default: a temporary folder)")
    pt.add_argument("--allow-held-out", action="store_true",
                    help="train on logs in a validation/ or test/ folder too (refused "
                         "otherwise: those networks are for choosing and for reporting)")
    add_trust_pickle(pt)
    pt.add_argument("-v", "--verbose", action="store_true")
    return pt


HELD_OUT = ("validation", "test")  # dataset folders pretraining does not read unless asked


def recipe_from_args(args) -> PretrainRecipe:
    """The shipped recipe with the fields the user named on the command line."""
    recipe = PretrainRecipe().with_seed(args.seed)
    changes = {"model": {}, "trainer": {}, "pretrain": {}, "featurizer": {}}
    for flag, (section, name) in RECIPE_FLAGS.items():
        value = getattr(args, flag)
        if value is not None:
            changes[section][name] = value
    if "hidden" in changes["model"]:  # one width for the layers and the readout
        changes["model"]["readout_hidden"] = changes["model"]["hidden"]
    return replace(recipe, **{section: replace(getattr(recipe, section), **fields)
                              for section, fields in changes.items()})


def results_path(args) -> str:
    return args.results or os.path.splitext(args.out)[0] + ".json"


def run(args) -> int:
    from ..offline.pretrain import pretrain_logs

    args.logs = log_files(args.logs)
    if not args.logs:
        raise SystemExit("error: only task files given; pass the logs (x.json.gz), their task "
                         "files (x.tasks.json.gz) are read beside them")
    for log in args.logs:
        if not os.path.exists(log):
            raise SystemExit(f"error: no log at {log}")
    held_out = [log for log in args.logs
                if os.path.basename(os.path.dirname(os.path.abspath(log))) in HELD_OUT]
    if held_out and not args.allow_held_out:
        raise SystemExit(f"error: {', '.join(held_out)} belong to a held-out set (a "
                         "validation/ or test/ folder: see tvm_gnn_cost.workloads.corpus); "
                         "train on data/train/, or pass --allow-held-out if you mean it")
    recipe = recipe_from_args(args)
    start = time.time()
    with untrusted_pickle_is_an_error():
        model, result = pretrain_logs(args.logs, recipe, progress=True, nproc=args.nproc,
                                      workers=args.workers, cache_dir=args.cache,
                                      trust_pickle=args.trust_pickle)
    model.save(args.out)
    with open(results_path(args), "w") as f:
        json.dump({"checkpoint": args.out, "logs": list(args.logs), "recipe": config_to_dict(recipe),
                   "seconds": time.time() - start, **result.to_dict()}, f, indent=1)
    print(f"{result.records} records in {result.shards} shards, at most "
          f"{result.max_in_memory} in memory at once")
    if result.val_tasks:
        print(f"pretrained on {result.train_tasks} tasks ({result.val_tasks} held out for "
              f"validation): best epoch {result.best_epoch} of {result.epochs}, validation "
              f"pairwise accuracy {result.best_val_accuracy:.3f}; saved {args.out}")
    else:
        print(f"pretrained on {result.train_tasks} tasks (none held out for validation) for "
              f"{result.epochs} epochs; saved {args.out}")
    print(f"results in {results_path(args)}")
    return 0
