"""The summary's verdict: the search (estimates) and the build (measured), each model both ways."""
from tvm_gnn_cost.curves import Curve, verdict


def _run(model, latencies, measured=None):
    c = Curve(model, 0, measured=measured)
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
