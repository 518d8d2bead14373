"""The command line on a single operator with a handful of trials: tune, resume, compare,
plot, and measuring through an RPC tracker on 127.0.0.1."""
import csv
import json
import os
import time

import pytest
from tvm import auto_scheduler

from tvm_gnn_cost.cli import main
from tvm_gnn_cost.cli.common import parse_target
from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.core.labels import FAILED_COST

MATMUL = ["--network", "matmul", "--input-shape", "128,128,128", "--measures-per-round", "8"]


def records(log):
    return list(auto_scheduler.RecordReader(log))


def test_tune_writes_a_standard_log_and_times_the_result(tmp_path, capsys):
    log = str(tmp_path / "mm.json")
    assert main(["tune", *MATMUL, "--model", "gnn", "--trials-per-task", "8", "--log", log,
                 "--save-model", str(tmp_path / "gnn.pt")]) == 0
    out = capsys.readouterr().out
    assert "budget: 8 trials (8 a task)" in out
    # the budget tells the truth: the one task stays in its first round, and says so
    assert "warning: 8 trials leave tasks in their first round" in out
    assert "16 trials (16 a task) give every task a second round" in out
    assert "trials a task: " in out and out.split("trials a task: ")[1].split("\n")[0].endswith(" 8")
    assert "measured latency with the best schedules" in out
    assert len(records(log)) == 8  # TVM's own reader takes it
    assert os.path.getsize(tmp_path / "gnn.pt") > 0
    with pytest.raises(SystemExit, match="--resume"):
        main(["tune", *MATMUL, "--trials", "8", "--log", log])


def test_resume_continues_without_remeasuring(tmp_path, matmul_task):
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune

    log = str(tmp_path / "mm.json")
    tune([matmul_task], GNNCostModel(seed=0), 16, log, search_params=SMALL_SEARCH,
         measures_per_round=8)
    first = records(log)
    assert len(first) == 16
    model = GNNCostModel(seed=0)
    curve = tune([matmul_task], model, 24, log, search_params=SMALL_SEARCH, measures_per_round=8,
                 resume=True)
    allrec = records(log)
    assert len(allrec) == 24  # 16 kept, 8 new: the budget counts what was there
    steps = {json.dumps(json.loads(auto_scheduler.measure_record.dump_record_to_string(i, r))["i"])
             for i, r in allrec}
    assert len(steps) == 24  # nothing measured twice
    assert model.records_seen == 24  # warmed on the 16, then saw the 8 new
    assert curve.trials[0] == 24
    best_before = min(measured_cost(r) for _, r in first)
    assert curve.final <= best_before * (1 + 1e-6)


def test_resume_with_less_than_a_round_per_task_left(tmp_path, matmul_task):
    """TaskScheduler alone would shrink the round to 4 (8 trials over 2 tasks); resuming keeps
    the round size and stops after the round that spends the budget."""
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune

    small = auto_scheduler.SearchTask(func="tvm_gnn_cost.matmul", args=(128, 128, 128),
                                      target=matmul_task.target)
    log = str(tmp_path / "two.json")
    tune([matmul_task, small], GNNCostModel(), 16, log, search_params=SMALL_SEARCH,
         measures_per_round=8)
    tune([matmul_task, small], GNNCostModel(), 24, log, search_params=SMALL_SEARCH,
         measures_per_round=8, resume=True)
    new = records(log)[16:]
    assert len(new) == 8 and len({i.task.workload_key for i, _ in new}) == 1


def test_compare_writes_curves_plot_and_summary(tmp_path, capsys):
    out = str(tmp_path / "cmp")
    assert main(["compare", *MATMUL, "--models", "gnn,xgb", "--trials", "16", "--seeds", "1",
                 "--out", out, "--no-build"]) == 0
    for name in ("curves.csv", "curves.json", "compare.json", "curves.png", "summary.md"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    with open(os.path.join(out, "curves.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(open(os.path.join(out, "curves.csv"))))
    assert {r["model"] for r in rows} == {"gnn", "xgb"}  # stock XGBModel runs too
    for model in ("gnn", "xgb"):
        lat = [float(r["latency_ms"]) for r in rows if r["model"] == model]
        trials = [int(r["trials"]) for r in rows if r["model"] == model]
        assert trials[-1] == 16 and trials == sorted(trials)
        assert all(b <= a for a, b in zip(lat, lat[1:]))  # monotone non-increasing
    summary = open(os.path.join(out, "summary.md")).read()
    assert "| gnn | 1 |" in summary and "| xgb | 1 |" in summary
    assert "xgb's final" in summary  # the verdict: each model against the other's final
    assert "Heavy tasks" in summary  # each run's progress on the task that carries the latency
    (task,) = json.load(open(os.path.join(out, "task_progress.json")))
    assert task["share"] == 1 and sorted(task["trials"]) == ["gnn", "xgb"]
    # the run that found the best program came within 5% of it at or before its last trial
    assert any(t is not None and t <= 16 for runs in task["trials"].values() for t in runs)
    # Rerun reuses the finished logs (nothing tuned again), and plot redraws from the saved data.
    logs = sorted(os.path.join(out, "logs", x) for x in os.listdir(os.path.join(out, "logs")))
    before = {p: open(p).read() for p in logs}
    assert main(["compare", *MATMUL, "--models", "gnn,xgb", "--trials", "16", "--seeds", "1",
                 "--out", out, "--no-build"]) == 0
    assert {p: open(p).read() for p in logs} == before
    os.remove(os.path.join(out, "curves.png"))
    assert main(["plot", out]) == 0
    assert os.path.getsize(os.path.join(out, "curves.png")) > 0
    data = json.load(open(os.path.join(out, "curves.json")))
    assert len(data) == 2


def test_budgets_that_cannot_run_are_refused_before_any_work(tmp_path, capsys):
    log = str(tmp_path / "x.json")
    for bad in (["--trials", "0"], ["--trials", "-5"], ["--trials-per-task", "0"],
                ["--trials", "8", "--trials-per-task", "4"],
                ["--trials", "8", "--measures-per-round", "0"]):
        with pytest.raises(SystemExit) as refused:
            main(["tune", "--network", "matmul", *bad, "--log", log])
        assert refused.value.code == 2  # argparse's usage error
    assert "must be at least 1, got -5" in capsys.readouterr().err
    # demo has two tasks: TVM's TaskScheduler would refuse one trial only once tuning starts
    with pytest.raises(SystemExit, match="1 trial cannot tune 2 tasks.*at least 2 trials"):
        main(["tune", "--network", "demo", "--trials", "1", "--log", log])
    # --resume of a log that holds none of the tasks' records is a fresh start: same check
    open(log, "w").close()
    with pytest.raises(SystemExit, match="1 trial cannot tune 2 tasks"):
        main(["tune", "--network", "demo", "--trials", "1", "--log", log, "--resume"])
    os.remove(log)
    with pytest.raises(SystemExit, match="1 trial cannot tune 2 tasks"):
        main(["compare", "--network", "demo", "--trials", "1", "--out", str(tmp_path / "c")])
    assert not os.path.exists(log) and not os.path.exists(tmp_path / "c" / "logs")


def test_where_results_cannot_be_written_is_said_before_tuning(tmp_path):
    # TVM's RecordToFile writes nothing, without an error, where it cannot write (an
    # unwritable --export on a network: test_bad_model_arguments_are_refused_with_the_fix)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(SystemExit, match="--log .*cannot create its folder"):
        main(["tune", *MATMUL, "--trials", "8", "--log", str(blocker / "x.json")])
    with pytest.raises(SystemExit, match="single operators"):  # nothing to export
        main(["tune", *MATMUL, "--trials", "8", "--log", str(tmp_path / "x.json"),
              "--export", str(tmp_path / "lib" / "m.so")])
    with pytest.raises(SystemExit, match="name the library with .so"):  # unloadable name
        main(["tune", *MATMUL, "--trials", "8", "--log", str(tmp_path / "x.json"),
              "--export", str(tmp_path / "lib" / "m")])
    assert not os.path.exists(tmp_path / "x.json") and not os.path.exists(tmp_path / "lib")
    log = str(tmp_path / "new" / "folder" / "x.json")  # a missing folder is made
    assert main(["tune", *MATMUL, "--model", "random", "--trials", "8", "--log", log,
                 "--no-build"]) == 0
    assert len(records(log)) == 8


def test_missing_files_and_bad_checkpoints_end_in_one_error_line(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    log = str(tmp_path / "x.json")
    for argv, what in [
            (["tune", *MATMUL, "--trials", "8", "--log", log, "--prior", str(bad)],
             "not a readable GNNCostModel checkpoint .*tvm-gnn-cost pretrain"),
            (["tune", *MATMUL, "--trials", "8", "--log", log, "--pretrained", str(bad)],
             "not a readable GNNCostModel checkpoint"),
            (["tune", *MATMUL, "--trials", "8", "--log", log,
              "--prior", str(tmp_path / "none.pt")], "No such file.*none.pt"),
            (["evaluate", "--baseline", "none", "--model", str(bad), "--", log],
             "not a readable GNNCostModel checkpoint"),
            (["plot", str(tmp_path / "no-run")], "curves.json not found")]:
        with pytest.raises(SystemExit, match=what):
            main(argv)
    assert not os.path.exists(log)
    with pytest.raises(ValueError, match="not a readable"):  # -v keeps the traceback
        main(["tune", *MATMUL, "--trials", "8", "--log", log, "--prior", str(bad), "-v"])


def test_a_profile_that_cannot_weigh_the_tasks_is_refused_before_tuning(tmp_path):
    log = str(tmp_path / "x.json")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "other.json").write_text(json.dumps(
        {"rows": [{"function": "fused_nn_dense_add", "calls": 1, "ms": 0.2, "tuned": True,
                   "estimate_ms": 0.1}]}))
    for profile, what in [("none.json", "no such file; tune with --profile first"),
                          ("list.json", "is no build profile"),
                          ("other.json", "times none of these tasks")]:
        with pytest.raises(SystemExit, match=what):
            main(["tune", *MATMUL, "--trials", "8", "--log", log,
                  "--weigh-by-profile", str(tmp_path / profile)])
    assert not os.path.exists(log)


def test_tune_with_metaschedule_on_this_tvm_says_to_use_apache_tvm(tmp_path):
    """TVM 0.19 has no Relax to build a MetaSchedule-tuned network with: the user is sent to
    apache-tvm before anything is loaded or written."""
    work = tmp_path / "work"
    with pytest.raises(SystemExit, match="run it with apache-tvm .*make setup-modern"):
        main(["tune", "--searcher", "metaschedule", "--network", str(tmp_path / "m.onnx"),
              "--trials", "8", "--log", str(work)])
    assert not work.exists()


def test_bad_target_is_refused_with_a_hint(tmp_path):
    with pytest.raises(SystemExit, match="invalid --target"):
        main(["tune", *MATMUL, "--trials", "8", "--log", str(tmp_path / "x.json"),
              "--target", "nonsense-target"])
    # LLVM would print an error and tune generic code under the misspelt name
    with pytest.raises(SystemExit, match="-mcpu=znver44 is not a CPU .* -mcpu="):
        main(["tune", *MATMUL, "--trials", "8", "--log", str(tmp_path / "x.json"),
              "--target", "llvm -mcpu=znver44"])
    # another ISA builds, but every measurement here would fail after the whole budget
    arm = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"
    with pytest.raises(SystemExit, match="compiles for aarch64.*--rpc-key"):
        main(["tune", *MATMUL, "--trials", "8", "--log", str(tmp_path / "x.json"),
              "--target", arm])
    assert not os.path.exists(tmp_path / "x.json")
    assert "aarch64" in str(parse_target(arm, rpc_key="rasp4"))  # measured on the device
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.ansor.tuning import tune
    from tvm_gnn_cost.workloads.networks import single_op_tasks

    with pytest.raises(ValueError, match="compiles for aarch64"):  # the Python API too
        tune(single_op_tasks("matmul", arm, 1, (64, 64, 64)), GNNCostModel(), 8,
             str(tmp_path / "y.json"))
    assert not os.path.exists(tmp_path / "y.json")


def test_a_target_this_tvm_cannot_compile_for_is_refused(tmp_path, cuda_task, caplog):
    import tvm

    from tvm_gnn_cost.workloads.targets import check_target

    check_target("llvm")
    assert "has no -mcpu" in caplog.text and "-mcpu=" + tvm.target.codegen.llvm_get_system_cpu() \
        in caplog.text
    caplog.clear()
    check_target("llvm -mtriple=aarch64-linux-gnu")  # for a device: not this machine's -mcpu
    assert "generic aarch64 code. Add the device's -mcpu" in caplog.text
    assert tvm.target.codegen.llvm_get_system_cpu() not in caplog.text

    if tvm.get_global_func("target.build.cuda", allow_missing=True) is not None:
        pytest.skip("this TVM build has CUDA")
    with pytest.raises(SystemExit, match="USE_CUDA=ON"):
        main(["tune", *MATMUL, "--trials", "8", "--log", str(tmp_path / "x.json"),
              "--target", "cuda"])
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.ansor.tuning import tune

    with pytest.raises(ValueError, match="cannot compile for target kind 'cuda'"):
        tune([cuda_task], GNNCostModel(), 8, str(tmp_path / "y.json"))


def test_tuning_through_an_rpc_tracker_measures_real_programs(tmp_path):
    from tvm import rpc
    from tvm.rpc.tracker import Tracker

    tracker = Tracker("127.0.0.1", port=9310, port_end=9390, silent=True)
    server = rpc.Server("127.0.0.1", port=9410, port_end=9490, key="gnn-test",
                        tracker_addr=("127.0.0.1", tracker.port), silent=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            summary = rpc.connect_tracker("127.0.0.1", tracker.port).summary()
            if any(q.get("key") == "gnn-test" or "gnn-test" in str(q)
                   for q in summary.get("server_info", [])):
                break
            time.sleep(0.5)
        log = str(tmp_path / "rpc.json")
        assert main(["tune", *MATMUL, "--model", "gnn", "--trials", "8", "--log", log,
                     "--rpc-key", "gnn-test", "--rpc-host", "127.0.0.1",
                     "--rpc-port", str(tracker.port), "--no-build"]) == 0
        costs = [measured_cost(r) for _, r in records(log)]
        assert len(costs) == 8
        assert sum(c < FAILED_COST for c in costs) >= 6  # real programs ran on the RPC server
    finally:
        server.terminate()
        tracker.terminate()


def test_tasks_nobody_could_measure_are_found(tmp_path, matmul_task, conv_task):
    """compare leaves out of the estimate a task whose every measurement failed in every run."""
    from tvm_gnn_cost.ansor.curves import curve_from_log
    from tvm_gnn_cost.ansor.logs import valid_workloads
    from tvm_gnn_cost.ansor.sampling import sample_states

    log = str(tmp_path / "mixed.json")
    ok = auto_scheduler.MeasureResult([1e-3], 0, "", 0.1, 1.0)
    failed = auto_scheduler.MeasureResult([1e10], 1, "instantiation error", 0.1, 2.0)
    auto_scheduler.save_records(log, [auto_scheduler.MeasureInput(matmul_task, s)
                                      for s in sample_states(matmul_task, 2)], [ok, ok])
    auto_scheduler.save_records(log, [auto_scheduler.MeasureInput(conv_task, s)
                                      for s in sample_states(conv_task, 2)], [failed, failed])
    assert valid_workloads([log]) == {matmul_task.workload_key}
    both = {matmul_task.workload_key: 1, conv_task.workload_key: 1}
    assert curve_from_log(log, both, "gnn", 0).final == float("inf")
    left_out = curve_from_log(log, {**both, conv_task.workload_key: 0}, "gnn", 0)
    assert left_out.final == 1e-3 and left_out.trials[-1] == 4  # its trials still count


def test_time_a_crashed_job_was_not_running_is_left_out(tmp_path, matmul_task):
    from tvm_gnn_cost.ansor.curves import curve_from_log
    from tvm_gnn_cost.ansor.sampling import sample_states

    log = str(tmp_path / "gap.json")
    states = sample_states(matmul_task, 4)
    results = [auto_scheduler.MeasureResult([1e-3], 0, "", 0.1, t) for t in (10, 11, 1000, 1001)]
    auto_scheduler.save_records(log, [auto_scheduler.MeasureInput(matmul_task, s)
                                      for s in states], results)
    w = {matmul_task.workload_key: 1}
    assert curve_from_log(log, w, "gnn", 0, round_size=1).seconds == [0, 1, 990, 991]
    assert curve_from_log(log, w, "gnn", 0, round_size=1, max_gap=60).seconds == [0, 1, 1, 2]


def test_a_short_first_round_is_its_own_point(tmp_path, matmul_task):
    """With ``--first-round 4`` a one-task log holds a round of 4 then rounds of 8; rebuilt
    without knowing it, the first two rounds would merge into one point."""
    from tvm_gnn_cost.ansor.curves import curve_from_log
    from tvm_gnn_cost.ansor.sampling import sample_states

    log = str(tmp_path / "first.json")
    costs = [5e-3] * 3 + [4e-3] + [3e-3] * 8  # the first round's best, then the second's
    results = [auto_scheduler.MeasureResult([c], 0, "", 0.1, 10 + i) for i, c in enumerate(costs)]
    auto_scheduler.save_records(log, [auto_scheduler.MeasureInput(matmul_task, s)
                                      for s in sample_states(matmul_task, 12)], results)
    w = {matmul_task.workload_key: 1}
    curve = curve_from_log(log, w, "gnn", 0, round_size=8, first_round=4)
    assert curve.trials == [4, 12] and curve.latency == [4e-3, 3e-3]
    assert curve_from_log(log, w, "gnn", 0, round_size=8).trials == [8, 12]


@pytest.mark.parametrize("target", ["llvm -mcpu=znver4", "llvm -mcpu=haswell"])
def test_compare_rebuilds_each_run_with_the_first_round_tune_gave_it(target):
    """compare cuts a run's curve at the first round its ``tune`` child used: the registry's
    choice says both, and the model it makes has the prior the round was sized for."""
    from tvm_gnn_cost.ansor.tuning import default_first_round
    from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT
    from tvm_gnn_cost.experiments.registry import choose

    task = auto_scheduler.SearchTask(func="tvm_gnn_cost.matmul", args=(64, 64, 64), target=target)
    rounds = {}
    for name in ("gnn", "gnn-online", "gnn-prior"):
        choice = choose(name, task.target, SHIPPED_CHECKPOINT if name == "gnn-prior" else None)
        rounds[name] = choice.first_round(16)
        model = choice.make(tasks=[task], trials=64)
        assert rounds[name] == default_first_round(model, 16), name
    assert rounds["gnn-prior"] < rounds["gnn-online"] == 16  # the check can tell them apart
    assert (rounds["gnn"] < 16) == ("znver4" in target)

def test_cache_flush_is_asked_for_and_reaches_a_compare_child():
    """--cache-flush times each program with cold caches, as TVM's x86 network tutorial does,
    and compare's tune children get it with the other workload flags."""
    from tvm_gnn_cost.cli import build_parser
    from tvm_gnn_cost.cli.common import measure_settings, workload_argv

    parse = build_parser().parse_args
    flushed = parse(["tune", *MATMUL, "--trials", "8", "--log", "x.json", "--cache-flush"])
    assert measure_settings(flushed).enable_cpu_cache_flush
    assert not measure_settings(parse(["tune", *MATMUL, "--trials", "8", "--log", "x.json"])
                                ).enable_cpu_cache_flush
    child = workload_argv(parse(["compare", *MATMUL, "--trials", "8", "--out", "o",
                                 "--cache-flush", "--input-shape", "64,64,64"]))
    assert "--cache-flush" in child and child[child.index("--input-shape") + 1] == "64,64,64"
