"""Curves and what a comparison reports of them: reach counted over every seed, the built
latency beside the estimates, and a failed build said as failed, never dropped (TVM-free)."""
import csv
import json
import math

from tvm_gnn_cost.curves import Curve, reach_stats, read_curves, write_curves
from tvm_gnn_cost.report import summary_table, verdict, write_csv


def _run(model, latencies, measured=None, seed=0):
    c = Curve(model, seed, measured=measured)
    for i, lat in enumerate(latencies):
        c.add(16 * (i + 1), 10.0 * (i + 1), lat)
    return c


def test_the_verdict_gives_the_built_latency_beside_the_estimates():
    gnn = _run("gnn", [5e-4, 4e-4, 3e-4], measured=0.8e-3)
    xgb = _run("xgb", [6e-4, 3.5e-4, 2.5e-4], measured=1e-3)
    line = verdict([gnn, xgb], "gnn", "xgb")
    assert line.startswith("gnn did not reach xgb's final 0.2500 ms in 48 trials (0/1 seeds); "
                           "xgb reached gnn's final 0.3000 ms in 48 of 48 trials")
    # the estimate favours xgb, the build gnn: both are said
    assert line.endswith("Built and measured: gnn 0.800 ms, xgb 1.000 ms (gnn 20% faster).")
    xgb.measured = None  # --no-build: no built figure to give
    assert "Built" not in verdict([gnn, xgb], "gnn", "xgb")


def test_reach_is_a_median_over_every_seed_a_never_reaching_one_counted_beyond_the_budget():
    runs = [_run("gnn", [3e-4, 1e-4, 1e-4], seed=0),  # reaches 1e-4 at 32 trials, 20 s
            _run("gnn", [3e-4, 2e-4, 1e-4], seed=1),  # at 48, 30 s
            _run("gnn", [3e-4, 2e-4, 2e-4], seed=2)]  # never
    r = reach_stats(runs, 1e-4, 48, 30.0)
    assert (r["reached"], r["seeds"]) == (2, 3)
    assert (r["trials"], r["seconds"]) == (48, 30.0)  # median of [32, 48, beyond]
    assert r["per_seed_trials"] == [32, 48, None]
    # with two of three never reaching, the median is never: not a median of the one that did
    assert math.isinf(reach_stats(runs[1:], 1e-4, 48, 30.0)["trials"])
    assert math.isinf(reach_stats([runs[0], runs[2], runs[2]], 1e-4, 48, 30.0)["seconds"])
    xgb = [_run("xgb", [4e-4, 2e-4, 1e-4], seed=s) for s in range(3)]
    table = summary_table(runs + xgb, "xgb")
    assert "| gnn | 3 |" in table and "48 (2/3 seeds) [32, 48, never]" in table


def test_a_failed_build_is_marked_in_the_table_the_csv_and_the_verdict(tmp_path):
    """A seed whose build computed something else is not a seed with no build: the medians
    say over how many builds they are taken, and which failed."""
    gnn = [_run("gnn", [2e-4], measured=1.0e-3, seed=0), _run("gnn", [2e-4], seed=1),
           _run("gnn", [2e-4], measured=1.2e-3, seed=2)]
    gnn[1].build_error = "wrong outputs: the tuned build's outputs have 8 NaN or inf value(s)"
    xgb = [_run("xgb", [2e-4], measured=1.5e-3, seed=s) for s in range(3)]
    table = summary_table(gnn + xgb, "xgb")
    assert "| 1.100 (2 of 3 built; failed: seed 1) |" in table.splitlines()[2]
    assert table.splitlines()[3].endswith("| 1.500 |")
    line = verdict(gnn + xgb, "gnn", "xgb")
    assert ("Built and measured: gnn 1.100 ms (2 of 3 built; seed 1: wrong outputs: the tuned "
            "build's outputs have 8 NaN or inf value(s)), xgb 1.500 ms (gnn 27% faster).") in line
    write_csv(gnn + xgb, str(tmp_path / "curves.csv"))
    rows = list(csv.DictReader(open(tmp_path / "curves.csv")))
    assert [(r["model"], r["seed"], r["build"]) for r in rows[:3]] == [
        ("gnn", "0", "checked"), ("gnn", "1", "failed"), ("gnn", "2", "checked")]
    assert rows[1]["measured_ms"] == "" and float(rows[0]["measured_ms"]) == 1.0
    # every build failed: said, not a blank
    for c in gnn:
        c.measured, c.build_error = None, "build failed: TVMError: x"
    assert "| none (0 of 3 built; failed: seed 0, 1, 2) |" in summary_table(gnn + xgb, "xgb")
    assert "gnn none (0 of 3 built;" in verdict(gnn + xgb, "gnn", "xgb")


def test_curves_round_trip_as_plain_json(tmp_path):
    """One to_dict/from_dict: an unknown latency is null in the file, inf again when read."""
    c = _run("gnn", [float("inf"), 3e-4], measured=1e-3)
    c.build_error = None
    path = str(tmp_path / "curves.json")
    write_curves([c], path)
    text = open(path).read()
    assert "Infinity" not in text and json.loads(text)[0]["latency"] == [None, 3e-4]
    (back,) = read_curves(path)
    assert back == c and back.final == 3e-4
    # what compare's MetaSchedule runs wrote before (Python's json, inf as Infinity) reads too
    old = {**c.to_dict(), "latency": [float("inf"), 3e-4]}
    del old["build_error"]
    assert Curve.from_dict(json.loads(json.dumps(old))) == c
