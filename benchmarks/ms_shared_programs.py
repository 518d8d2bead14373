"""The MetaSchedule benchmark's curves with one latency for each program several runs measured.

A task whose design space holds a single program (the GPT block's GELU, whose erf is a scalar
call MetaSchedule cannot vectorize; a reshape) is measured once in every run: each model
measures the same program, so the runs differ there only by measurement noise, which no model
can act on. On the GPT block that task carries about half the estimated latency, and seed 0's
two runs, 24 minutes apart, measured its one program at 418 and 475 us (a 14% gap, larger
than the whole gap between the two finals).

This script reads every run's database (records in measuring order), gives each program (a
task and its trace) that more than one run measured the median of all its measurements in
all runs, replays each run's estimated latency over its records with those latencies, and
writes the comparison's table both ways: as measured and with shared programs pooled. The
as-measured replay must give the run's own curve (checked: it says so where it does not).
The built networks, timed in turns, do not need this.

    .venv-modern/bin/python benchmarks/ms_shared_programs.py \\
        tvm_gnn_cost.workloads.corpus.transformer:gpt_block runs/ms-gpt_block

Writes ``shared_programs.md`` (both tables, the verdicts and the pooled programs) and
``pooled_curves.json`` in the folder.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
from typing import Dict, List, Tuple

import numpy as np

from tvm_gnn_cost.curves import Curve, write_curves
from tvm_gnn_cost.metaschedule.tuning import (FAILED_COST, RECORDS_FILE, WORKLOADS_FILE,
                                              ms_workload_from_model)
from tvm_gnn_cost.report import summary_table, verdict
from tvm_gnn_cost.tir.compat import structural_hash
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores

Program = Tuple[int, str]  # (task index, trace as JSON text)


def read_run(work_dir: str, task_of_hash: Dict[int, int]) -> List[Tuple[Program, float]]:
    """Each record of the run's database in measuring order: its program and mean cost
    (``inf`` for a failure); records of modules not in the workload are left out."""
    with open(os.path.join(work_dir, WORKLOADS_FILE)) as f:
        line_task = {i: task_of_hash.get(int(json.loads(line)[0]))
                     for i, line in enumerate(f) if line.strip()}
    out = []
    with open(os.path.join(work_dir, RECORDS_FILE)) as f:
        for line in f:
            if not line.strip():
                continue
            line_no, record = json.loads(line)
            task = line_task.get(line_no)
            if task is None:
                continue
            secs = record[1] or []
            cost = float(np.mean([float(s) for s in secs])) if secs else math.inf
            out.append(((task, json.dumps(record[0])), cost if cost < FAILED_COST else math.inf))
    return out


def replay(curve: Curve, records, weights, cost_of=None) -> Curve:
    """``curve`` with each point's latency recomputed from the first ``trials`` records, each
    program's cost ``cost_of[program]`` where given (its own measurement otherwise)."""
    best = [math.inf] * len(weights)
    estimates = []  # after k records
    for program, cost in records:
        cost = (cost_of or {}).get(program, cost)
        best[program[0]] = min(best[program[0]], cost)
        estimates.append(sum(w * b for w, b in zip(weights, best) if w))
    out = Curve(curve.model, curve.seed, measured=curve.measured, build_error=curve.build_error)
    for t, s in zip(curve.trials, curve.seconds):
        out.add(t, s, estimates[min(t, len(estimates)) - 1] if t and estimates else math.inf)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("network", help="the corpus entry point the runs tuned")
    ap.add_argument("folder", help="the benchmark's work folder (runs/ms-NET): its "
                                   "metaschedule/MODEL-seedN.json curves and databases")
    ap.add_argument("--reference", default="xgb")
    args = ap.parse_args()
    workload = ms_workload_from_model(args.network, with_num_cores(host_target()))
    names = [name for name, _ in workload.modules]
    task_of_hash = {structural_hash(mod) & (2 ** 64 - 1): t
                    for t, (_, mod) in enumerate(workload.modules)}
    runs = {}
    for path in sorted(glob.glob(os.path.join(args.folder, "metaschedule", "*-seed*.json"))):
        if re.fullmatch(r".+-seed\d+\.json", os.path.basename(path)):  # not .partial
            with open(path) as f:
                curve = Curve.from_dict(json.load(f))
            runs[(curve.model, curve.seed)] = (curve, read_run(path[:-len(".json")],
                                                               task_of_hash))
    if not runs:
        raise SystemExit(f"error: no finished run in {args.folder}/metaschedule "
                         "(MODEL-seedN.json with its database in MODEL-seedN/)")
    measurements: Dict[Program, Dict[tuple, List[float]]] = {}
    for key, (_, records) in runs.items():
        for program, cost in records:
            measurements.setdefault(program, {}).setdefault(key, []).append(cost)
    shared = {p: float(np.median([c for costs in by_run.values() for c in costs]))
              for p, by_run in measurements.items() if len(by_run) > 1}

    raw, pooled, lines = [], [], []
    for key, (curve, records) in runs.items():
        again = replay(curve, records, workload.weights)
        if not np.allclose(again.latency, curve.latency, rtol=1e-9):
            lines.append(f"- {key[0]} seed {key[1]}: the replay differs from the run's curve "
                         f"(final {again.final * 1e3:.4f} against {curve.final * 1e3:.4f} ms)")
        raw.append(curve)
        pooled.append(replay(curve, records, workload.weights, shared))
    other = next((c.model for c in raw if c.model != args.reference), "")
    text = [f"# {args.network}: programs several runs measured, pooled", "",
            "As measured:", "", summary_table(raw, args.reference), "",
            verdict(raw, other, args.reference), "",
            "Each program several runs measured at the median of all its measurements:", "",
            summary_table(pooled, args.reference), "",
            verdict(pooled, other, args.reference), "", *lines, "",
            "Shared programs that weigh (weight x spread of its runs' medians >= 1 us):", "",
            "| task | weight | pooled (us) | each run's (us) |", "|---|---:|---:|---|"]
    for (task, trace), value in sorted(shared.items(), key=lambda kv: kv[0][0]):
        by_run = measurements[(task, trace)]
        medians = {k: float(np.median(v)) for k, v in by_run.items()}
        weight = workload.weights[task]
        if weight * (max(medians.values()) - min(medians.values())) >= 1e-6:
            each = ", ".join(f"{m} s{s} {v * 1e6:.1f}" for (m, s), v in sorted(medians.items()))
            text.append(f"| {names[task]} | {weight:g} | {value * 1e6:.1f} | {each} |")
    report = "\n".join(text) + "\n"
    with open(os.path.join(args.folder, "shared_programs.md"), "w") as f:
        f.write(report)
    write_curves(pooled, os.path.join(args.folder, "pooled_curves.json"))
    print(report)


if __name__ == "__main__":
    main()
