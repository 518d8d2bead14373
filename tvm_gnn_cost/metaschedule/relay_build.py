"""Build what MetaSchedule tuned for a Relay model (TVM 0.19) with the best programs of its
database, and check it, as :mod:`.relax_build` does on apache-tvm.

``relay.build`` under the database (MetaSchedule's ``compile_relay``, which also applies the
weight layout changes the programs chose); tasks without a valid record keep TVM's default
schedules, and are named. The outputs are checked against the original model in its framework
(torch, ONNX Runtime) or, for a model without one, against an untuned build, with the same
check and error as an Ansor build (:mod:`tvm_gnn_cost.workloads.harness`).
"""
from __future__ import annotations

from ..workloads.harness import BuildReport, Built, check_outputs, graph_timer, run_network
from ..workloads.networks import Workload
from .cost_model import ms
from .tuning import fallback_tasks, open_database


def build_checked(model: Workload, tasks, work_dir: str, target) -> Built:
    """Build the Relay network ``model`` with the best programs of the database in
    ``work_dir`` and check its outputs; ``tasks`` are the tuned ``(name, module)`` pairs, for
    naming those that fell back.

    Raises
    ------
    WrongResultError
        If the outputs differ from the original's.
    """
    import tvm
    from tvm import relay

    target = tvm.target.Target(target)
    database = open_database(work_dir)
    lib = ms.relay_integration.compile_relay(database, model.mod, target, model.params)
    dev = tvm.cpu()
    feeds = model.feeds()
    if model.reference is not None:
        expected, what = model.reference(feeds), model.framework
    else:
        with tvm.transform.PassContext(opt_level=3):
            untuned = relay.build(model.mod, target=target, params=model.params)
        expected, what = run_network(untuned, dev, feeds), "the untuned TVM build"
    error = check_outputs(run_network(lib, dev, feeds), expected, what)
    report = BuildReport(0.0, error, what, fallback_tasks(tasks, database, target))
    return Built(report, graph_timer(lib, dev, feeds), lib)


__all__ = ["build_checked"]
