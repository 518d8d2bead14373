"""Reports of a comparison for people and scripts: ``curves.csv``, ``curves.json``,
``compare.json``, ``curves.png`` and ``summary.md`` (a table and a verdict) of a set of
:class:`~tvm_gnn_cost.curves.Curve` s."""
from __future__ import annotations

import csv
import json
import math
import os
import warnings
from typing import List, Sequence

import numpy as np

from .curves import (Curve, budget, built_stats, by_model, median_final, reach_stats,
                     write_curves)


def write_csv(curves: Sequence[Curve], path: str) -> None:
    """One row per round: model, seed, trials, seconds, estimated latency, and the run's
    build: its measured latency and whether it was built and checked (``checked``),
    ``failed`` (its message in ``summary.md`` and ``curves.json``) or not built (empty)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "seed", "trials", "seconds", "latency_ms", "measured_ms", "build"])
        for c in curves:
            status = "failed" if c.build_error else ("checked" if c.measured else "")
            measured = f"{c.measured * 1e3:.6f}" if c.measured else ""
            for t, s, lat in zip(c.trials, c.seconds, c.latency):
                w.writerow([c.model, c.seed, t, f"{s:.3f}",
                            f"{lat * 1e3:.6f}" if math.isfinite(lat) else "inf", measured,
                            status])


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
    groups = by_model(curves)
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


def _reach_cell(r: dict, key: str, fmt: str) -> str:
    med = r[key]
    limit = r[f"budget_{key}"]
    text = fmt.format(med) if math.isfinite(med) else f"never (> {fmt.format(limit)})"
    text += f" ({r['reached']}/{r['seeds']} seeds)"
    if r["seeds"] > 1:
        text += " [" + ", ".join("never" if x is None else fmt.format(x)
                                 for x in r[f"per_seed_{key}"]) + "]"
    return text


def _built_cell(runs: Sequence[Curve]) -> str:
    """The median measured latency over the seeds built and checked, saying how many were
    when not all: a median over the others only is not every seed's."""
    b = built_stats(runs)
    if not b["built"] and not b["failed"]:
        return "-"
    text = f"{b['median'] * 1e3:.3f}" if b["built"] else "none"
    if b["built"] < b["seeds"]:
        text += f" ({b['built']} of {b['seeds']} built"
        if b["failed"]:
            text += "; failed: seed " + ", ".join(str(s) for s in sorted(b["failed"]))
        text += ")"
    return text


def summary_table(curves: Sequence[Curve], reference: str = "xgb") -> str:
    """Markdown: per model, medians over seeds of the final latency, the trials and tuning
    seconds to reach the reference model's final latency (:func:`reach_stats`: k of n seeds,
    never-reaching seeds counted beyond the budget, then each seed's), tuning time, time per
    trial and measured latency of the builds (k of n built where a build failed)."""
    groups = by_model(curves)
    ref_final = median_final(groups[reference]) if reference in groups else None
    lines = [f"| model | seeds | final est. latency (ms) | trials to reach {reference}'s final "
             f"| seconds to reach it | tuning time (s) | s per trial | measured latency (ms) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for model, runs in groups.items():
        finals = [c.final * 1e3 for c in runs]
        reach_t = reach_s = "-"
        if ref_final is not None and math.isfinite(ref_final):  # inf: nothing to reach
            r = reach_stats(runs, ref_final, *budget(runs))
            reach_t, reach_s = _reach_cell(r, "trials", "{:.0f}"), _reach_cell(r, "seconds",
                                                                                 "{:.0f}")
        wall = [c.wall for c in runs]
        per_trial = [c.wall / c.trials[-1] for c in runs if c.trials]
        lines.append(
            f"| {model} | {len(runs)} | {np.median(finals):.4f} (min {min(finals):.4f}, "
            f"max {max(finals):.4f}) | {reach_t} | {reach_s} | {np.median(wall):.0f} | "
            f"{np.median(per_trial) if per_trial else float('nan'):.2f} | "
            f"{_built_cell(runs)} |")
    return "\n".join(lines)


def verdict(curves: Sequence[Curve], model: str, reference: str) -> str:
    """One line: how many trials and seconds each of two models needed to reach the other's
    final estimated latency (medians over seeds, never-reaching seeds counted as not), then
    the two built networks' measured latencies (medians over the seeds built and checked, k
    of n where a build failed): the estimate says how the search went, the build what a user
    gets."""
    groups = by_model(curves)
    if model not in groups or reference not in groups:
        return ""
    parts = []
    for a, b in ((model, reference), (reference, model)):
        final = median_final(groups[b])
        budget_t, budget_s = budget(groups[a])
        r = reach_stats(groups[a], final, budget_t, budget_s)
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
    built = {m: built_stats(groups[m]) for m in (model, reference)}
    if all(b["built"] or b["failed"] for b in built.values()):
        line += " " + _built_sentence(built, model, reference)
    return line


def _built_sentence(built: dict, model: str, reference: str) -> str:
    def each(m: str) -> str:
        b = built[m]
        text = f"{m} {b['median'] * 1e3:.3f} ms" if b["built"] else f"{m} none"
        if b["built"] < b["seeds"]:
            text += f" ({b['built']} of {b['seeds']} built"
            if b["failed"]:
                text += "; " + "; ".join(f"seed {s}: {why}"
                                         for s, why in sorted(b["failed"].items()))
            text += ")"
        return text

    line = f"Built and measured: {each(model)}, {each(reference)}"
    if built[model]["built"] and built[reference]["built"]:
        faster = 1 - built[model]["median"] / built[reference]["median"]
        line += f" ({model} {abs(faster):.0%} {'faster' if faster >= 0 else 'slower'})"
    return line + "."


def write_report(curves: Sequence[Curve], out: str, title: str, reference: str = "xgb",
                 note: str = "", model: str = "gnn") -> str:
    """Write ``curves.csv``, ``curves.json``, ``compare.json`` (title, note, reference: what
    ``plot`` redraws with), ``curves.png`` and ``summary.md`` into ``out``; returns the
    summary's table and verdict as text."""
    os.makedirs(out, exist_ok=True)
    write_curves(curves, os.path.join(out, "curves.json"))
    write_csv(curves, os.path.join(out, "curves.csv"))
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump({"title": title, "note": note, "reference": reference}, f, indent=1)
    plot_curves(curves, os.path.join(out, "curves.png"), title)
    table = summary_table(curves, reference)
    line = verdict(curves, model, reference)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(f"# {title}\n\n{table}\n")
        for text in (line, note):
            if text:
                f.write(f"\n{text}\n")
    return table + (f"\n\nverdict: {line}" if line else "")


__all__ = ["plot_curves", "summary_table", "verdict", "write_csv", "write_report"]
