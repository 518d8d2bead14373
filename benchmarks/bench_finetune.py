"""Does online fine-tuning help or hurt a pretrained GNN on a network it never saw?

Replays the warm-up of a tuning job offline: the tasks of a held-out log in a random order,
``--per-task`` measured programs of each added to the trainer's history as a round would add
them (fit after every round from the first on, as an online model would), and after each round the pairwise accuracy on the
programs of the tasks not measured yet (what the next rounds' choices depend on), and at the
end on every program of every task that was not trained on (what fine-tuning learned of the
measured tasks). One row per
learning rate and anchor (``TrainerConfig.anchor``, L2-SP) of the online fine-tuning, and one
without fine-tuning.

    .venv/bin/python benchmarks/bench_finetune.py tvm_gnn_cost/checkpoints/gnn-cpu.pt data/validation/squeezenet.json.gz
    .venv/bin/python benchmarks/bench_finetune.py --lrs 0,2e-3 --anchors 0,0.1,1 CKPT LOG
"""
from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np


from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.core.labels import normalized_throughput
from tvm_gnn_cost.core.metrics import pairwise_accuracy
from tvm_gnn_cost.offline.pretrain import load_records


def replay(ckpt: str, data, order, per_task: int, lr, seed: int, anchor: float = 0.0):
    model = GNNCostModel()
    model.load(ckpt)
    trainer = model.trainer
    # Fine-tune from the first round on (the checkpoint itself waits for finetune_after
    # records), held near the checkpoint's weights by ``anchor`` (TrainerConfig.anchor).
    trainer.configure(replace(trainer.config, num_warmup_sample=per_task, lr=lr or trainer.config.lr,
                              anchor=anchor))
    tasks = np.asarray(data.tasks)
    costs = np.asarray(data.costs)
    truth = normalized_throughput(costs, tasks)
    rng = np.random.default_rng(seed)
    unseen_acc = []
    held_out = np.ones(len(tasks), dtype=bool)  # programs never added to the history
    for i, task in enumerate(order):
        idx = rng.choice(np.flatnonzero(tasks == task), per_task, replace=False)
        held_out[idx] = False
        trainer.add([data.graphs[k] for k in idx], [task] * per_task, costs[idx])
        if lr:
            trainer.fit()
        rest = np.isin(tasks, order[i + 1:])
        if rest.any():
            scores = trainer.predict([g for g, r in zip(data.graphs, rest) if r])
            unseen_acc.append(pairwise_accuracy(scores, truth[rest], tasks[rest]))
    scores = trainer.predict(data.graphs)
    final = pairwise_accuracy(scores, truth, tasks)
    own = pairwise_accuracy(scores[held_out], truth[held_out], tasks[held_out])
    return float(np.mean(unseen_acc)), float(unseen_acc[len(unseen_acc) // 2]), final, own


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("log")
    ap.add_argument("--per-task", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--lrs", default="0,1e-4,5e-4,2e-3")
    ap.add_argument("--anchors", default="0",
                    help="comma-separated TrainerConfig.anchor values, each with every lr")
    args = ap.parse_args()
    data = load_records(GNNCostModel().featurizer, [args.log])
    names = sorted(set(data.tasks))
    print(f"{args.log}: {len(data.graphs)} programs of {len(names)} tasks, "
          f"{args.per_task} a round, {args.seeds} task orders")
    print("| online lr | anchor | mean accuracy on unmeasured tasks | at half the warm-up | "
          "all tasks after | after, the programs not trained on |")
    print("|---|---:|---:|---:|---:|---:|")
    for lr in [float(x) for x in args.lrs.split(",")]:
        for anchor in [float(x) for x in args.anchors.split(",")] if lr else [0.0]:
            rows = []
            for seed in range(args.seeds):
                order = list(np.random.default_rng(seed).permutation(names))
                rows.append(replay(args.checkpoint, data, order, args.per_task, lr, seed,
                                   anchor))
            m = np.mean(rows, axis=0)
            label = "no fine-tuning" if not lr else f"{lr:g}"
            print(f"| {label} | {anchor:g} | {m[0]:.3f} | {m[1]:.3f} | {m[2]:.3f} | "
                  f"{m[3]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
