"""Pretrained GNN as a frozen prior mixed with an online GNN, replayed offline on one network.

Each task's measured programs are split: ``--test`` of them to score, the rest fed to the
models in rounds of ``--per-round`` as a tuning job would measure them (first a round of
every task, in a random order, then further rounds in the same order). Before a task's
round is fed, every model ranks the task's test programs; the table gives the pairwise
accuracy by how many records of its own the task had then (0 = its first round, scored
from other tasks only). Models: the prior alone; the prior fine-tuned as ``gnn-pretrained``
does (from ``finetune_after`` records at ``finetune_lr``); the online GNN alone (trained
from scratch, no exploration noise); and blends of the last with the prior for several
``prior_records``.

With ``--search-log NETWORK``, the logs are tuning jobs' logs of NETWORK instead, replayed
in the order they were measured: each round (a run of one task's records) is ranked by every
model before it is fed, so the figures are about the programs a search actually proposes,
near the best ones; XGBModel (trained on the same history) is scored too. Where a record
holds two or more repeats, "repeat 1 vs repeat 2" ranks the round by its first repeat against
its second: how well two measurements agree, a ceiling for any model. ``--min-us`` scores only
the rounds whose median program runs at least that long (the tasks that carry a network's
latency); every round is still fed. ``--variant NAME:SECTION.FIELD=VALUE,...`` adds an online
GNN with those settings changed (sections: featurizer, model, trainer), scored beside the others
(for example ``--variant steps:featurizer.step_tokens=12``).

    .venv/bin/python benchmarks/bench_prior.py PRIOR.pt data/train/resnet-18.json.gz
    .venv/bin/python benchmarks/bench_prior.py PRIOR.pt --search-log resnet-18 runs/r18/logs/*.json
"""
from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from dataclasses import replace

import numpy as np


from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.ansor.records import repeat_costs
from tvm_gnn_cost.core.config import FeaturizerConfig, ModelConfig, TrainerConfig
from tvm_gnn_cost.core.labels import normalized_throughput
from tvm_gnn_cost.core.metrics import pairwise_accuracy
from tvm_gnn_cost.offline.pretrain import load_records
from tvm_gnn_cost.core.prior import blend_scores, prior_weight


def replay(ckpt: str, data, per_round: int, n_test: int, ks, seed: int):
    """Accuracies keyed by (model, own records) over one task order."""
    prior = GNNCostModel()
    prior.load(ckpt)
    tuned = GNNCostModel()
    tuned.load(ckpt)
    online = GNNCostModel(seed=seed, trainer_config=TrainerConfig(explore_records=0))
    tasks = np.asarray(data.tasks)
    costs = np.asarray(data.costs)
    truth = normalized_throughput(costs, tasks)
    rng = np.random.default_rng(seed)
    names = list(rng.permutation(sorted(set(data.tasks))))
    feed, test = {}, {}
    for t in names:
        idx = rng.permutation(np.flatnonzero(tasks == t))
        test[t], feed[t] = idx[:n_test], idx[n_test:]
    rounds = max(len(v) for v in feed.values()) // per_round
    acc = defaultdict(list)
    for r in range(rounds):
        for t in names:
            batch = feed[t][r * per_round:(r + 1) * per_round]
            if len(batch) == 0:
                continue
            g = [data.graphs[k] for k in test[t]]
            y, grp = truth[test[t]], tasks[test[t]]
            if np.ptp(y) > 0:
                sp = prior.trainer.predict(g)
                so = online.trainer.predict(g) if online.trainer.ready else sp
                own = online.trainer.task_valid.get(t, 0)
                acc["prior", r].append(pairwise_accuracy(sp, y, grp))
                acc["prior fine-tuned", r].append(pairwise_accuracy(tuned.trainer.predict(g), y, grp))
                acc["online", r].append(pairwise_accuracy(so, y, grp))
                for k in ks:
                    s = blend_scores(sp, so, prior_weight(own, k)) if online.trainer.ready else sp
                    acc[f"blend, prior_records={k:g}", r].append(pairwise_accuracy(s, y, grp))
            for m in (online, tuned):
                m.trainer.add([data.graphs[k] for k in batch], [t] * len(batch), costs[batch])
                m.trainer.fit()
    return acc, rounds


def online_variant(spec: str, seed: int):
    """``(name, GNNCostModel)`` of ``NAME:SECTION.FIELD=VALUE,...``: an online GNN, no
    exploration noise, with those settings changed."""
    name, _, changes = spec.partition(":")
    cfg = {"featurizer": FeaturizerConfig(), "model": ModelConfig(),
           "trainer": TrainerConfig(explore_records=0, seed=seed)}
    for change in filter(None, changes.split(",")):
        key, _, value = change.partition("=")
        section, _, fld = key.partition(".")
        if section not in cfg or not hasattr(cfg[section], fld):
            raise SystemExit(f"--variant {spec}: {key} is not a setting; use featurizer.X, "
                             "model.X or trainer.X with X a field of that config")
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            pass  # a plain string, e.g. trainer.loss=listmle+mse
        cfg[section] = replace(cfg[section], **{fld: value})
    return name, GNNCostModel(featurizer_config=cfg["featurizer"], model_config=cfg["model"],
                              trainer_config=cfg["trainer"])


def repeat_agreement(results, ok) -> float:
    """Pairwise agreement of the first two repeats of a round's records (nan if fewer)."""
    reps = [repeat_costs(r) for r, k in zip(results, ok) if k]
    if any(len(r) < 2 for r in reps):
        return float("nan")
    first, second = np.array([r[0] for r in reps]), np.array([r[1] for r in reps])
    return pairwise_accuracy(-first, -second, np.zeros(len(reps)))


def replay_search_log(ckpt: str, log: str, ks, bins, seed: int = 0, min_us: float = 0.0,
                      variants=()):
    """Accuracies keyed by (model, bin of the task's own records) along one tuning log."""
    from tvm import auto_scheduler

    from tvm_gnn_cost.ansor.featurizer import task_key
    from tvm_gnn_cost.ansor.logs import read_log
    from tvm_gnn_cost.ansor.records import TaskRebuilder, measured_cost

    inputs, results, _ = read_log(log)
    rounds, start = [], 0
    for i in range(1, len(inputs) + 1):  # a round: consecutive records of one task
        if i == len(inputs) or inputs[i].task.workload_key != inputs[start].task.workload_key:
            rounds.append((start, i))
            start = i
    prior = GNNCostModel()
    prior.load(ckpt)
    tuned = GNNCostModel()
    tuned.load(ckpt)
    online = GNNCostModel(seed=seed, trainer_config=TrainerConfig(explore_records=0))
    xgb = auto_scheduler.XGBModel(seed=seed, num_warmup_sample=16)
    extra = dict(online_variant(v, seed) for v in variants)
    acc = defaultdict(list)
    rebuilder = TaskRebuilder()  # a log's task has no usable DAG: rebuild it as the adapter does
    for a, b in rounds:
        task = rebuilder.task_of(inputs[a])
        states = [inp.state for inp in inputs[a:b]]
        cost = np.array([measured_cost(r) for r in results[a:b]])
        ok = np.isfinite(cost) & (cost < 1e9)
        if ok.sum() >= 2 and np.ptp(cost[ok]) > 0 and np.median(cost[ok]) * 1e6 >= min_us:
            y, grp = -cost[ok], np.zeros(ok.sum())
            graphs = [g for g, k in zip(online.featurize_measured(task, states), ok) if k]
            own = online.trainer.task_valid.get(task_key(task), 0)
            col = np.searchsorted(bins, own, side="right") - 1
            sp = prior.trainer.predict(graphs)
            so = online.trainer.predict(graphs) if online.trainer.ready else sp
            acc["prior", col].append(pairwise_accuracy(sp, y, grp))
            acc["prior fine-tuned", col].append(
                pairwise_accuracy(tuned.trainer.predict(graphs), y, grp))
            acc["online", col].append(pairwise_accuracy(so, y, grp))
            for k in ks:
                s = blend_scores(sp, so, prior_weight(own, k)) if online.trainer.ready else sp
                acc[f"blend, prior_records={k:g}", col].append(pairwise_accuracy(s, y, grp))
            sx = np.asarray(xgb.predict(task, [s for s, k in zip(states, ok) if k]))
            acc["XGBModel", col].append(pairwise_accuracy(sx, y, grp))
            for name, m in extra.items():  # same featurizer settings: the same graphs
                gv = graphs if m.featurizer_config == online.featurizer_config else [
                    g for g, k in zip(m.featurize_measured(task, states), ok) if k]
                sv = m.trainer.predict(gv) if m.trainer.ready else np.zeros(len(gv))
                acc[name, col].append(pairwise_accuracy(sv, y, grp))
            acc["repeat 1 vs repeat 2", col].append(repeat_agreement(results[a:b], ok))
        for m in (online, tuned, xgb, *extra.values()):
            m.update(inputs[a:b], results[a:b])
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prior")
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--per-round", type=int, default=8)
    ap.add_argument("--test", type=int, default=16)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--prior-records", default="4,8,16,32")
    ap.add_argument("--search-log", metavar="NETWORK", default=None,
                    help="the logs are tuning logs of NETWORK, replayed in their order")
    ap.add_argument("--min-us", type=float, default=0.0,
                    help="with --search-log, score only rounds whose median program takes "
                         "at least this many microseconds")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:SECTION.FIELD=V,...",
                    help="with --search-log, also an online GNN with these settings changed")
    args = ap.parse_args()
    ks = [float(x) for x in args.prior_records.split(",")]
    if args.search_log:
        search_main(args, ks)
        return
    data = load_records(GNNCostModel().featurizer, args.logs)
    total = defaultdict(list)
    rounds = 0
    for seed in range(args.seeds):
        acc, rounds = replay(args.prior, data, args.per_round, args.test, ks, seed)
        for key, v in acc.items():
            total[key].append(np.nanmean(v))
    print(f"{' '.join(args.logs)}: {len(data.graphs)} programs of {len(set(data.tasks))} tasks, "
          f"{args.test} a task scored, {args.per_round} a round, {args.seeds} task orders")
    own = [str(r * args.per_round) for r in range(rounds)]
    print("| model | " + " | ".join(f"own records {o}" for o in own) + " | mean |")
    print("|---|" + "---:|" * (rounds + 1))
    for model in dict.fromkeys(k[0] for k in total):
        row = [float(np.mean(total[model, r])) for r in range(rounds)]
        print(f"| {model} | " + " | ".join(f"{v:.3f}" for v in row) + f" | {np.mean(row):.3f} |",
              flush=True)


def search_main(args, ks) -> None:
    from tvm_gnn_cost.workloads.networks import load_workload
    from tvm_gnn_cost.workloads.targets import host_target

    load_workload(args.search_log, host_target())  # registers the network's workloads
    bins = [0, 1, 9, 17, 33]
    labels = ["0", "1-8", "9-16", "17-32", "33+"]
    total = defaultdict(list)
    scored = [0] * len(labels)  # rounds scored in each column, all logs together
    for log in args.logs:
        for key, v in replay_search_log(args.prior, log, ks, bins, min_us=args.min_us,
                                           variants=args.variant).items():
            total[key].append(np.nanmean(v))
            if key[0] == "prior":
                scored[key[1]] += len(v)
        print(f"replayed {log}", flush=True)
    print(f"{' '.join(args.logs)}: each round ranked before it is fed; columns by the task's "
          f"own valid records then; rounds with a median of {args.min_us:g} us or more")
    print("| model | " + " | ".join(f"own {x}" for x in labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for model in dict.fromkeys(k[0] for k in total):
        row = [np.mean(total[model, c]) if total[model, c] else float("nan")
               for c in range(len(labels))]
        print(f"| {model} | " + " | ".join(f"{v:.3f}" for v in row) + " |", flush=True)
    print("| rounds scored | " + " | ".join(str(n) for n in scored) + " |")


if __name__ == "__main__":
    main()
