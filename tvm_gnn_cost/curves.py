"""Search curves, one type for every search: best estimated latency against trials and time,
recorded live (Ansor's ``TaskScheduler``, MetaSchedule's measure callbacks) or rebuilt from
logs; saved as CSV/JSON, drawn as a PNG, summarized as a markdown table."""
from __future__ import annotations

import csv
import json
import math
import os
import warnings
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

from .core.labels import FAILED_COST

INF = float("inf")


@dataclass
class Curve:
    """One tuning run: the best estimated end-to-end latency after each round."""

    model: str
    seed: int
    trials: List[int] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)
    latency: List[float] = field(default_factory=list)  # seconds; inf until every task has one
    measured: Optional[float] = None  # latency of the built program, measured (seconds)

    @property
    def final(self) -> float:
        return self.latency[-1] if self.latency else INF

    @property
    def wall(self) -> float:
        return self.seconds[-1] if self.seconds else 0.0

    def add(self, trials: int, seconds: float, latency: float) -> None:
        """Append the state after a round (``latency`` in seconds, ``inf`` if not known)."""
        self.trials.append(int(trials))
        self.seconds.append(max(0.0, float(seconds)))
        self.latency.append(float(latency) if math.isfinite(latency) else INF)

    def trials_to_reach(self, latency: float) -> Optional[int]:
        """First trial count at which the curve is at or below ``latency``; None if never."""
        for t, lat in zip(self.trials, self.latency):
            if lat <= latency * (1 + 1e-9):
                return t
        return None

    def seconds_to_reach(self, latency: float) -> Optional[float]:
        """Tuning seconds until the curve is at or below ``latency``; None if never."""
        for s, lat in zip(self.seconds, self.latency):
            if lat <= latency * (1 + 1e-9):
                return s
        return None


def curve_from_log(log_file: str, weights: Dict[str, float], model: str, seed: int,
                   start_time: Optional[float] = None, round_size: int = 16,
                   max_gap: Optional[float] = None, first_round: Optional[int] = None) -> Curve:
    """Rebuild a curve from an Ansor log, one point per round.

    A round is a run of consecutive records of one task (how ``TaskScheduler`` measures),
    at most ``round_size`` long, and at most ``first_round`` (default ``round_size``) for a
    task's first round (``tune --first-round``). Records of tasks not in ``weights`` are
    skipped; a task of weight 0 counts towards the trials but not towards the latency. Time
    is taken from the records' timestamps, from ``start_time`` if given, else from the first
    record's.
    A gap longer than ``max_gap`` seconds between two records is taken as time the job was
    not running (a crash, then a resume later) and left out.
    """
    from .ansor.logs import read_log
    from .ansor.records import measured_cost

    best = {k: INF for k in weights}
    rounds = {k: 0 for k in weights}  # rounds of each task begun
    curve = Curve(model, seed)
    prev_key, ts0, n, in_round = None, start_time, 0, 0
    last_ts, paused = 0.0, 0.0
    for inp, res in zip(*read_log(log_file)[:2]):
        key = inp.task.workload_key
        if key not in best:
            continue
        size = round_size if rounds[key] > 1 or first_round is None else first_round
        if prev_key is not None and (key != prev_key or in_round == size):
            _add_point(curve, n, last_ts - ts0 - paused, best, weights)
            in_round = 0
        if not in_round:
            rounds[key] += 1
        n += 1
        in_round += 1
        ts = float(res.timestamp)
        ts0 = ts if ts0 is None else ts0
        if n > 1 and max_gap is not None and ts - last_ts > max_gap:
            paused += ts - last_ts
        last_ts = ts
        cost = measured_cost(res)
        if cost < FAILED_COST:
            best[key] = min(best[key], cost)
        prev_key = key
    if n:
        _add_point(curve, n, last_ts - ts0 - paused, best, weights)
    return curve


def valid_workloads(logs: Sequence[str]) -> set:
    """Workload keys with at least one successful measurement in any of ``logs``."""
    from .ansor.logs import read_log

    keys = set()
    for log in logs:
        for inp, res in zip(*read_log(log)[:2]):
            if int(res.error_no) == 0:
                keys.add(inp.task.workload_key)
    return keys


def weights_measured(tasks, weights, logs: Sequence[str]):
    """Task weights by workload key, 0 for tasks no log measured successfully.

    A task that no run could measure (a TVM build error, say) would make every estimate
    infinite; with weight 0 its trials still count but it is left out of the latency.
    Returns the weights and the descriptions of the tasks left out.
    """
    ok = valid_workloads(logs)
    out = {t.workload_key: (w if t.workload_key in ok else 0) for t, w in zip(tasks, weights)}
    return out, [t.desc or t.workload_key for t in tasks if t.workload_key not in ok]


def _add_point(curve: Curve, trials: int, seconds: float, best: Dict[str, float],
               weights: Dict[str, float]) -> None:
    curve.add(trials, seconds, sum(weights[k] * best[k] for k in weights if weights[k] > 0))


def write_curves(curves: Sequence[Curve], out_dir: str) -> None:
    """``curves.csv`` (one row per round) and ``curves.json`` (everything) in ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "curves.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "seed", "trials", "seconds", "latency_ms"])
        for c in curves:
            for t, s, lat in zip(c.trials, c.seconds, c.latency):
                w.writerow([c.model, c.seed, t, f"{s:.3f}",
                            f"{lat * 1e3:.6f}" if math.isfinite(lat) else "inf"])
    with open(os.path.join(out_dir, "curves.json"), "w") as f:
        json.dump([{**asdict(c), "latency": [x if math.isfinite(x) else None for x in c.latency]}
                   for c in curves], f, indent=1)


def read_curves(out_dir: str) -> List[Curve]:
    """Curves written by :func:`write_curves`."""
    path = os.path.join(out_dir, "curves.json")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} not found; run `tvm-gnn-cost compare --out {out_dir}` first")
    with open(path) as f:
        data = json.load(f)
    return [Curve(**{**d, "latency": [INF if x is None else x for x in d["latency"]]}) for d in data]


def _by_model(curves: Sequence[Curve]) -> Dict[str, List[Curve]]:
    out: Dict[str, List[Curve]] = {}
    for c in curves:
        out.setdefault(c.model, []).append(c)
    return out


def _on_grid(curves: List[Curve], grid: np.ndarray, axis: str) -> np.ndarray:
    """Each curve's best latency (ms) at each grid x (step function), NaN before its first point."""
    rows = []
    for c in curves:
        xs = np.array(c.trials if axis == "trials" else c.seconds, dtype=float)
        ys = np.array([v * 1e3 if math.isfinite(v) else np.nan for v in c.latency])
        idx = np.searchsorted(xs, grid, side="right") - 1
        rows.append(np.where(idx >= 0, ys[np.clip(idx, 0, None)], np.nan))
    return np.array(rows)


def plot_curves(curves: Sequence[Curve], png: str, title: str = "") -> None:
    """Median and min-max band over seeds, against trials and against wall-clock time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    # A log axis with nothing finite on it fails to draw: runs whose every trial failed.
    groups = _by_model(curves)
    empty = [m for m, runs in groups.items()
             if not any(math.isfinite(v) for c in runs for v in c.latency)]
    for axis, ax in zip(("trials", "seconds"), axes):
        for model, runs in sorted(groups.items()):
            if model in empty:
                ax.plot([], [], label=f"{model}: no valid measurement")
                continue
            xmax = max(max(c.trials if axis == "trials" else c.seconds, default=0) for c in runs)
            grid = np.linspace(0, xmax, 200)
            ys = _on_grid(runs, grid, axis)
            with warnings.catch_warnings():  # all-NaN columns before the first point
                warnings.simplefilter("ignore", RuntimeWarning)
                med = np.median(ys, axis=0)  # only where every seed has a value
                lo, hi = np.nanmin(ys, axis=0), np.nanmax(ys, axis=0)
            ax.plot(grid, med, label=f"{model} (median of {len(runs)})")
            ax.fill_between(grid, lo, hi, alpha=0.2)
        ax.set_xlabel("measurement trials" if axis == "trials" else "tuning time (s)")
        ax.set_ylabel("best estimated latency (ms)")
        if len(empty) < len(groups):
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def reach_stats(runs: Sequence[Curve], latency: float, budget_trials: int,
                budget_seconds: float) -> dict:
    """How the seeds of one model reach ``latency``: how many did, and the medians over all
    seeds of the trials and seconds it took, a seed that never reached counting as beyond the
    budget (``inf``, so the median is ``inf`` when half or more never did). The protocol of
    ``shared/docs/benchmark-protocol.md``: never a median over only the seeds that reached."""
    trials = [c.trials_to_reach(latency) for c in runs]
    seconds = [c.seconds_to_reach(latency) for c in runs]
    med = lambda xs: float(np.median([INF if x is None else x for x in xs]))  # noqa: E731
    return {"reached": sum(t is not None for t in trials), "seeds": len(runs),
            "trials": med(trials), "seconds": med(seconds), "per_seed_trials": trials,
            "per_seed_seconds": seconds, "budget_trials": budget_trials,
            "budget_seconds": budget_seconds}


def _reach_cell(r: dict, key: str, fmt: str) -> str:
    med = r[key]
    budget = r[f"budget_{key}"]
    text = fmt.format(med) if math.isfinite(med) else f"never (> {fmt.format(budget)})"
    text += f" ({r['reached']}/{r['seeds']} seeds)"
    if r["seeds"] > 1:
        text += " [" + ", ".join("never" if x is None else fmt.format(x)
                                 for x in r[f"per_seed_{key}"]) + "]"
    return text


def summary_table(curves: Sequence[Curve], reference: str = "xgb") -> str:
    """Markdown: per model, medians over seeds of the final latency, the trials and tuning
    seconds to reach the reference model's final latency (:func:`reach_stats`: k of n seeds,
    never-reaching seeds counted beyond the budget, then each seed's), tuning time, time per
    trial and measured latency."""
    groups = _by_model(curves)
    ref_final = None
    if reference in groups:
        ref_final = float(np.median([c.final for c in groups[reference]]))
    lines = [f"| model | seeds | final est. latency (ms) | trials to reach {reference}'s final "
             f"| seconds to reach it | tuning time (s) | s per trial | measured latency (ms) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for model, runs in groups.items():
        finals = [c.final * 1e3 for c in runs]
        reach_t = reach_s = "-"
        if ref_final is not None and math.isfinite(ref_final):  # inf: nothing to reach
            r = reach_stats(runs, ref_final, max(c.trials[-1] if c.trials else 0 for c in runs),
                            max(c.wall for c in runs))
            reach_t, reach_s = _reach_cell(r, "trials", "{:.0f}"), _reach_cell(r, "seconds",
                                                                                 "{:.0f}")
        wall = [c.wall for c in runs]
        per_trial = [c.wall / c.trials[-1] for c in runs if c.trials]
        measured = [c.measured * 1e3 for c in runs if c.measured]
        lines.append(
            f"| {model} | {len(runs)} | {np.median(finals):.4f} (min {min(finals):.4f}, "
            f"max {max(finals):.4f}) | {reach_t} | {reach_s} | {np.median(wall):.0f} | "
            f"{np.median(per_trial) if per_trial else float('nan'):.2f} | "
            + (f"{np.median(measured):.3f}" if measured else "-") + " |")
    return "\n".join(lines)


def verdict(curves: Sequence[Curve], model: str, reference: str) -> str:
    """One line: how many trials and seconds each of two models needed to reach the other's
    final estimated latency (medians over seeds, never-reaching seeds counted as not), then
    the two built networks' measured latencies (medians over seeds), where they were built:
    the estimate says how the search went, the build what a user gets."""
    groups = _by_model(curves)
    if model not in groups or reference not in groups:
        return ""
    parts = []
    for a, b in ((model, reference), (reference, model)):
        final = float(np.median([c.final for c in groups[b]]))
        runs = groups[a]
        budget_t = max(c.trials[-1] if c.trials else 0 for c in runs)
        budget_s = max(c.wall for c in runs)
        r = reach_stats(runs, final, budget_t, budget_s)
        if not math.isfinite(final):
            parts.append(f"{b} has no final latency")
        elif math.isfinite(r["trials"]):
            parts.append(f"{a} reached {b}'s final {final * 1e3:.4f} ms in {r['trials']:.0f} "
                         f"of {budget_t} trials and {r['seconds']:.0f} of {budget_s:.0f} s "
                         f"({r['reached']}/{r['seeds']} seeds)")
        else:
            parts.append(f"{a} did not reach {b}'s final {final * 1e3:.4f} ms in {budget_t} "
                         f"trials ({r['reached']}/{r['seeds']} seeds)")
    line = "; ".join(parts) + "."
    built = {m: [c.measured for c in groups[m] if c.measured] for m in (model, reference)}
    if all(built.values()):
        ms = {m: float(np.median(v)) * 1e3 for m, v in built.items()}
        faster = 1 - ms[model] / ms[reference]
        line += (f" Built and measured: {model} {ms[model]:.3f} ms, {reference} "
                 f"{ms[reference]:.3f} ms ({model} {abs(faster):.0%} "
                 f"{'faster' if faster >= 0 else 'slower'}).")
    return line
