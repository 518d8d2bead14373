"""Run each model for each seed at the same budget, and build what each run found: the
library behind ``tvm-gnn-cost compare``.

Seeds are the outer loop and models the inner one, so machine noise hits every model alike,
and every finished run is kept on disk, so running again reuses it. An Ansor run is a
``tune`` child process writing an Ansor log (TVM can abort the whole process; the log lets a
restart resume), its curve rebuilt from that log; a MetaSchedule run tunes in this process
and keeps its curve as JSON. The builds of all runs are checked and then timed in turns with
the original model in its framework; a run whose build fails or computes something else is
marked so on its curve (:attr:`~tvm_gnn_cost.curves.Curve.build_error`), never dropped.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

from ..core.files import replaced_whole
from ..curves import Curve, read_curves
from ..progress import TaskProgress, heavy_task_progress
from ..signals import signal_name

logger = logging.getLogger("tvm_gnn_cost")

#: (model, seed, log) -> the command line of a ``tune`` child process that writes ``log``.
ChildCommand = Callable[[str, int, str], List[str]]


def each_run(models: Sequence[str], seeds: int, run_one: Callable):
    """``run_one(model, seed)`` for every seed and model, seeds outer: models alternate, so
    machine noise hits all of them."""
    return [run_one(model, seed) for seed in range(seeds) for model in models]


@dataclass
class AnsorRuns:
    """What :func:`ansor_runs` gives: the curves in run order, the log of each, a note of
    the tasks left out of the estimate, and the heavy tasks' progress in each run."""

    curves: List[Curve]
    logs: List[str]
    note: str = ""
    progress: List[TaskProgress] = field(default_factory=list)


def ansor_runs(tasks, weights, models: Sequence[str], seeds: int, trials: int, out: str,
               command: ChildCommand, first_round: Callable[[str], int],
               measures_per_round: int = 16, max_gap: Optional[float] = 300.0,
               logs: Sequence[Tuple[str, str]] = ()) -> AnsorRuns:
    """Tune every model for every seed to ``trials`` in ``tune`` child processes (logs in
    ``out/logs``, a complete one reused), beside the existing ``logs`` ((model, path)
    pairs, seeds in the order given), and rebuild each run's curve from its log.

    ``first_round(model)`` is the size of each task's first round in that model's runs (the
    curve's rounds follow it); ``max_gap`` seconds between two records count as the job not
    running. A task no run measured successfully is left out of every estimate, and named in
    the note.
    """
    from ..ansor.curves import curve_from_log, read_measured, task_costs, weights_measured

    logs_dir = os.path.join(out, "logs")
    os.makedirs(logs_dir, exist_ok=True)
    runs: List[Tuple[str, int, str]] = []
    for model, path in logs:
        runs.append((model, sum(1 for r in runs if r[0] == model), path))

    def run_one(model: str, seed: int):
        log = os.path.join(logs_dir, f"{model}-seed{seed}.json")
        tune_in_child(command(model, seed, log), tasks, trials, log, f"{model} seed {seed}")
        return model, seed, log

    runs += each_run(models, seeds, run_one)
    measured = {log: read_measured(log) for _, _, log in runs}  # each log read once
    by_key, dropped = weights_measured(tasks, weights, list(measured.values()))
    note = ""
    if dropped:
        note = ("Left out of the estimated latency (no valid measurement in any run): "
                + ", ".join(dropped))
        logger.warning(note)
    curves = []
    for model, seed, log in runs:
        start = None
        if os.path.exists(log + ".start"):
            start = float(open(log + ".start").read())
        curves.append(curve_from_log(measured[log], by_key, model, seed, start_time=start,
                                     round_size=measures_per_round, max_gap=max_gap,
                                     first_round=first_round(model)))
    names = {t.workload_key: t.desc or f"task {i}" for i, t in enumerate(tasks)}
    costs = {(m, s): task_costs(measured[log], by_key) for m, s, log in runs}
    progress = heavy_task_progress(costs, by_key, names)
    return AnsorRuns(curves, [log for _, _, log in runs], note, progress)


def tune_in_child(command: List[str], tasks, trials: int, log: str, label: str,
                  max_restarts: int = 5) -> None:
    """Run ``command`` (a ``tune`` writing ``log``) until ``log`` holds ``trials`` records of
    ``tasks``, resuming (``--resume``) after a crash.

    A child process because TVM can abort the whole process (a C++ assertion on
    XGBModel's path, see README); the log keeps every measured record, so a restart
    continues where the crash left off. Gives up after ``max_restarts`` crashes, or at once
    if a crash measured nothing new. Tuning time is counted from the first start
    (``log.start``).
    """
    from ..ansor.tuning import count_records

    done = count_records(log, tasks)
    restarts = 0
    while done < trials:
        print(f"[{label}] tuning: {done} of {trials} trials done", flush=True)
        if not done:  # tuning time is counted from here
            with open(log + ".start", "w") as f:
                f.write(repr(time.time()))
        rc = call_child(command + (["--resume"] if done else []))
        now = count_records(log, tasks)
        if rc == 0 and now >= trials:
            return
        if rc == 0:
            raise RuntimeError(f"tuning {label} ended at {now} of {trials} trials; see its "
                               "output above")
        restarts += 1
        logger.warning("[%s] the tuning process died (exit %d) at %d trials", label, rc, now)
        if not now and not os.path.exists(log):
            raise RuntimeError(f"tuning {label} failed before it measured anything (exit "
                               f"{rc}); see its output above")
        if now == done or restarts > max_restarts:
            logger.warning("[%s] giving up at %d of %d trials; its curve stops there", label,
                           now, trials)
            return
        done = now


def call_child(command: List[str], grace: float = 300.0) -> int:
    """Run a ``tune`` child process and return its exit code.

    On Ctrl-C or SIGTERM the child is sent the same signal (a copy of what it may have had
    already takes nothing away), ends the round it is measuring and keeps its log whole:
    wait up to ``grace`` seconds for that before killing it (a second signal kills it at
    once). The child is never left running on its own.
    """
    child = subprocess.Popen(command)
    try:
        return child.wait()
    except KeyboardInterrupt as err:
        signum = getattr(err, "signum", signal.SIGINT)
        if child.poll() is None:
            child.send_signal(signum)
        print(f"\nwaiting for the tuning process to end its round ({signal_name(signum)} "
              "again to kill it)", file=sys.stderr, flush=True)
        try:
            child.wait(timeout=grace)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        raise


def time_builds(curves: Sequence[Curve], logs: Sequence[str], workload, target,
                out: str, build_checked=None) -> Optional[float]:
    """Build each run's log with its best schedules, check it, and time all builds in turns
    (:func:`~tvm_gnn_cost.workloads.harness.time_side_by_side`) with the original model in its
    framework, so that the host's drift hits each alike; returns the framework's seconds
    (None if not timed).

    ``workload`` has the model's ``name``, ``reference``, ``framework`` and ``feeds``;
    ``build_checked(log)`` builds and checks one run (a
    :class:`~tvm_gnn_cost.workloads.harness.Built`; default: Ansor's, of ``workload`` for
    ``target``). Sets each curve's ``measured`` or, where the build failed or its outputs
    were wrong, ``build_error``. Results of an earlier call on the same ``out`` are kept if
    every run has one (timed together then).
    """
    from ..workloads.errors import error_summary
    from ..workloads.harness import WrongResultError, reference_timer, time_side_by_side

    def key(c):
        return c.model, c.seed, c.trials[-1] if c.trials else 0

    if os.path.exists(os.path.join(out, "curves.json")):
        previous = {key(c): c for c in read_curves(out)}
        if all(key(c) in previous and (previous[key(c)].measured is not None
                                       or previous[key(c)].build_error) for c in curves):
            for c in curves:
                c.measured, c.build_error = previous[key(c)].measured, previous[key(c)].build_error
            return None
    if build_checked is None:
        from ..ansor.build import build_checked as ansor_build

        def build_checked(log):
            return ansor_build(workload, log, target)
    timers = {}
    for i, (curve, log) in enumerate(zip(curves, logs)):
        print(f"[{curve.model} seed {curve.seed}] building {workload.name} with the best "
              f"schedules of {log}", flush=True)
        try:
            timers[i] = build_checked(log).timer
        except WrongResultError as err:
            curve.build_error = f"wrong outputs: {err}"
            logger.error("[%s seed %d] %s", curve.model, curve.seed, curve.build_error)
        except Exception as err:  # noqa: BLE001 - a build error must not lose the comparison
            curve.build_error = f"build failed: {error_summary(err)}"
            logger.warning("[%s seed %d] building %s with the best schedules of %s failed: %s",
                           curve.model, curve.seed, workload.name, log, error_summary(err))
    what = f"{len(timers)} build(s)"
    if timers and workload.reference is not None:
        timers["reference"] = reference_timer(workload.reference, workload.feeds())
        what += f" and {workload.framework}"
    print(f"timing {what} in turns", flush=True)
    seconds = time_side_by_side(timers)
    for i, curve in enumerate(curves):
        curve.measured = seconds.get(i)
    return seconds.get("reference")


def framework_line(workload, seconds: Optional[float], runs: int = 15) -> str:
    """What the user would run without TVM: the original model's CPU inference time in its
    framework (torch eager, ONNX Runtime), ``seconds`` if it was timed in turns with the
    builds, else now (median of ``runs``); "" if it has none."""
    from ..workloads.harness import time_reference

    if workload.reference is None:
        return ""
    how = "timed in turns with the builds"
    if seconds is None:
        seconds = time_reference(workload.reference, workload.feeds(), runs)
        how = f"median of {runs} runs"
    return (f"{workload.framework} runs the original model in {seconds * 1e3:.3f} ms on this "
            f"host ({how}): what the user would run without TVM.")


def metaschedule_log(out: str, model: str, seed: int) -> str:
    """The work folder (JSON database) of one MetaSchedule run of a comparison."""
    return os.path.join(out, "metaschedule", f"{model}-seed{seed}")


def metaschedule_runs(workload, models: Sequence[str], seeds: int, trials: int, out: str,
                      target, per_iter: int = 16) -> List[Curve]:
    """Tune ``workload`` (an :class:`~tvm_gnn_cost.metaschedule.tuning.MSWorkload`) with every
    MetaSchedule model for every seed in this process; each finished run's curve is kept in
    ``out/metaschedule/MODEL-seedN.json`` (its database in the folder beside,
    :func:`metaschedule_log`) and reused.

    A run under way keeps its curve in ``MODEL-seedN.partial.json`` after every measured
    batch; killed and started again, it resumes from its database with that curve, the pause
    left out of its tuning time. A database without that curve (from a version that did not
    keep it) is measured again from the start, as its tuning time is not known.
    """
    from ..metaschedule.tuning import has_records, ms_tune
    from .registry import make_ms_model

    def run_one(model: str, seed: int) -> Curve:
        work_dir = metaschedule_log(out, model, seed)
        path, partial = work_dir + ".json", work_dir + ".partial.json"
        if os.path.exists(path):  # a finished run is reused
            with open(path) as f:
                return Curve.from_dict(json.load(f))
        so_far = None
        if has_records(work_dir) and os.path.exists(partial):
            with open(partial) as f:
                so_far = Curve.from_dict(json.load(f))
            print(f"[{model} seed {seed}] resuming at {so_far.trials[-1] if so_far.trials else 0}"
                  f" trials, {so_far.wall:.0f} s", flush=True)
        elif has_records(work_dir):
            logger.warning("[%s seed %d] %s holds records but not the run's curve, so its "
                           "tuning time is unknown: tuning it again from the start", model, seed,
                           work_dir)
            shutil.rmtree(work_dir)
        else:
            print(f"[{model} seed {seed}] tuning {workload.name} with MetaSchedule", flush=True)
        curve = ms_tune(workload, make_ms_model(model, seed, target), trials, work_dir, target,
                        seed, per_iter, name=model, resume=so_far is not None, curve=so_far,
                        on_point=lambda c: _write_json(partial, c.to_dict()))
        _write_json(path, curve.to_dict())
        if os.path.exists(partial):
            os.remove(partial)
        return curve

    return each_run(models, seeds, run_one)


def metaschedule_progress(workload, curves: Sequence[Curve], out: str) -> List[TaskProgress]:
    """The heavy tasks' progress (:mod:`tvm_gnn_cost.progress`) in each of
    :func:`metaschedule_runs`' runs, from their databases."""
    from ..metaschedule.tuning import task_costs

    names = [name for name, _ in workload.modules]
    mods = [mod for _, mod in workload.modules]
    costs = {(c.model, c.seed): dict(zip(names, task_costs(metaschedule_log(out, c.model,
                                                                              c.seed), mods)))
             for c in curves}
    return heavy_task_progress(costs, dict(zip(names, workload.weights)))


def _write_json(path: str, doc: dict) -> None:
    """``doc`` to ``path`` whole or not at all (a kill mid-write keeps the last one)."""
    with replaced_whole(path, "w") as f:
        json.dump(doc, f)


__all__ = ["AnsorRuns", "ChildCommand", "ansor_runs", "call_child", "each_run",
           "framework_line", "metaschedule_log", "metaschedule_progress", "metaschedule_runs",
           "time_builds", "tune_in_child"]
