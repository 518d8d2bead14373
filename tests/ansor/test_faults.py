"""Faults a long tuning job meets: failed builds and runs, damaged logs, a kill mid-run."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import psutil
import pytest
import torch
from tvm import auto_scheduler
from tvm.contrib import cc

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.ansor.logs import OTHER_TARGET, UNREADABLE, read_log, repair_log
from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.ansor.sampling import measure_states, sample_states
from tvm_gnn_cost.core.labels import FAILED_COST
from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def mixed_records(matmul_task):
    """Programs of one task: 12 measured fine, 6 whose run times out, 6 whose build fails."""
    states = sample_states(matmul_task, 24, seed=11)
    ok = measure_states(matmul_task, states[:12])
    # each run repeats for at least 3 s, the runner waits 1 s
    too_short = auto_scheduler.LocalRunner(timeout=1, number=1, repeat=1, min_repeat_ms=3000)
    timeout = measure_states(matmul_task, states[12:18], runner=too_short)
    no_compiler = cc.cross_compiler("/nonexistent/bin/cc")
    broken = measure_states(matmul_task, states[18:],
                            builder=auto_scheduler.LocalBuilder(build_func=no_compiler))
    auto_scheduler.LocalBuilder()  # later builds in this process use the real compiler again
    return states, ok, timeout, broken


def test_failed_measurements_are_the_worst_and_never_poison_training(matmul_task, mixed_records):
    states, ok, timeout, broken = mixed_records
    assert all(int(r.error_no) == 0 for r in ok[1])
    # TVM 0.19's LocalRunner reports its own timeout as a runtime error
    assert all(int(r.error_no) != 0 and "TimeoutError" in str(r.error_msg) for r in timeout[1])
    assert {int(r.error_no) for r in broken[1]} == {auto_scheduler.measure.MeasureErrorNo.COMPILE_HOST}

    model = GNNCostModel(seed=0, num_warmup_sample=4)
    model.update(timeout[0] + broken[0], timeout[1] + broken[1])  # failures only: nothing to learn
    assert model.last_fit is None and not model.trainer.ready
    model.update(ok[0], ok[1])
    assert model.last_fit is not None and np.isfinite(model.last_fit.loss_last)
    labels = model.trainer.labels()
    failed = ~np.isfinite(np.asarray(model.trainer.costs))
    assert failed.sum() == 12 and (labels[failed] == 0).all()
    assert labels[~failed].min() > 0 and np.isfinite(labels).all()
    for p in model.trainer.model.parameters():
        assert torch.isfinite(p).all()
    scores = model.predict(matmul_task, states)
    assert np.isfinite(scores).all() and (scores > 0).all()


def test_a_search_whose_every_run_times_out_ends_cleanly(matmul_task, tmp_path):
    log = str(tmp_path / "timeouts.json")
    model = GNNCostModel(seed=0, num_warmup_sample=4)
    runner = auto_scheduler.LocalRunner(timeout=1, number=1, repeat=1, min_repeat_ms=3000)
    tune([matmul_task], model, 16, log, search_params=SMALL_SEARCH, measures_per_round=8,
         runner=runner)
    inputs, results, report = read_log(log)
    # TaskScheduler may stop a task early once it has nothing but failures
    assert report.used >= 8 and all(measured_cost(r) == FAILED_COST for r in results)
    assert model.records_seen == report.used and not model.trainer.ready


def _damage(log, target_str, tmp_path):
    """A copy of ``log`` with a garbage line, a record of another target, a record of an
    unregistered workload, and a last line cut in half (a crash while writing)."""
    lines = open(log).read().splitlines()
    other = lines[0].replace(target_str, "llvm -keys=cpu -mcpu=skylake-avx512")
    assert other != lines[0]
    unregistered = lines[1].replace("tvm_gnn_cost.matmul", "nobody.registered_this")
    assert unregistered != lines[1]
    bad = str(tmp_path / "damaged.json")
    with open(bad, "w") as f:
        f.write("\n".join(lines[:4] + ["this is not a record", other] + lines[4:]
                          + [unregistered]) + "\n")
        f.write(lines[5][: len(lines[5]) // 2])
    return bad, len(lines)


def test_damaged_logs_are_read_around_and_reported(matmul_task, mixed_records, tmp_path, caplog):
    _, ok, _, _ = mixed_records
    log = str(tmp_path / "good.json")
    auto_scheduler.save_records(log, ok[0], ok[1])
    bad, n_good = _damage(log, str(matmul_task.target), tmp_path)

    inputs, _, report = read_log(bad, target=str(matmul_task.target))
    assert report.used == n_good + 1  # the unregistered record parses; its task cannot be rebuilt
    assert report.skipped == {UNREADABLE: 2, OTHER_TARGET: 1}
    assert "skipped 3" in caplog.text

    model = GNNCostModel(seed=0, num_warmup_sample=4)
    used = model.update_from_file(bad, target=str(matmul_task.target))
    assert used == n_good and model.trainer.ready
    assert "unregistered workload" in caplog.text

    garbage = tmp_path / "garbage.json"
    garbage.write_text("not a record\n{\"i\": [\n")
    with pytest.raises(ValueError, match="no usable measurement record"):
        GNNCostModel().update_from_file(str(garbage))

    with pytest.raises(Exception):  # TVM's own reader stops at the first bad line
        auto_scheduler.RecordReader(bad).read_lines()
    assert repair_log(bad) == 2
    assert len(auto_scheduler.RecordReader(bad).read_lines()[0]) == n_good + 2
    assert len(open(bad + ".bad").read().splitlines()) == 2
    assert repair_log(bad) == 0


def test_a_crash_while_saving_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    path = str(tmp_path / "gnn.pt")
    GNNCostModel(seed=1).save(path)
    before = open(path, "rb").read()

    def dies_half_way(obj, f, *a, **k):
        f.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", dies_half_way)
    with pytest.raises(KeyboardInterrupt):
        GNNCostModel(seed=2).save(path)
    assert open(path, "rb").read() == before
    assert [p.name for p in tmp_path.iterdir()] == ["gnn.pt"]  # no temporary file left behind
    monkeypatch.undo()
    GNNCostModel().load(path)


def _is_record(line):
    try:
        return "i" in json.loads(line)
    except ValueError:
        return False


#: 40 measurements of a matmul, in rounds of 8 (tune) or chunks of 16 (collect).
MATMUL = ["--network", "matmul", "--input-shape", "128,128,128"]
TUNE = ["tune", *MATMUL, "--measures-per-round", "8", "--model", "gnn", "--trials", "40",
        "--no-build"]
COLLECT = ["collect", *MATMUL, "--programs-per-task", "40"]


def start_job(command: list, log: str, records: int, out: str = None, **popen):
    """``tvm-gnn-cost COMMAND`` writing ``log`` (in ``out``, compare's folder), in a process
    of its own, once ``log`` holds ``records`` records; its command line, environment and
    process."""
    cmd = [sys.executable, "-m", "tvm_gnn_cost", *command,
           "--log" if command[0] == "tune" else "--out", out or log]
    env = dict(os.environ, TOPHUB_LOCATION="NONE")
    job = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, **popen)
    deadline = time.time() + 300
    while time.time() < deadline and job.poll() is None:
        if os.path.exists(log) and len(open(log).read().splitlines()) >= records:
            break
        time.sleep(0.2)
    assert job.poll() is None, "the job ended before it could be stopped"
    return cmd, env, job


def test_a_killed_tuning_job_resumes_without_losing_a_record(tmp_path):
    log = str(tmp_path / "mm.json")
    cmd, env, job = start_job(TUNE + ["-v"], log, 16, stderr=subprocess.DEVNULL)
    job.send_signal(signal.SIGKILL)
    job.wait()
    kept = [x for x in open(log).read().splitlines() if _is_record(x)]
    assert 16 <= len(kept) < 40
    with open(log, "a") as f:  # as if the kill had come in the middle of writing a record
        f.write(kept[-1][:100])

    done = subprocess.run(cmd + ["--resume"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    final = open(log).read().splitlines()
    assert final[:len(kept)] == kept  # every record measured before the kill is still there
    assert len(final) == 40
    assert len({json.dumps(json.loads(x)["i"]) for x in final}) == 40  # none measured twice
    assert f"trained on {log}: {len(kept)} records" in done.stderr  # the model saw all of them
    assert os.path.exists(log + ".bad")


@pytest.mark.parametrize("command,size,again,hint", [
    (TUNE, 8, ["--resume"], "the same command with --resume continues it"),
    (COLLECT, 16, [], "the same command again goes on (programs in the log are not measured "
                      "again)")], ids=["tune", "collect"])
def test_ctrl_c_ends_measuring_between_rounds_and_the_log_goes_on(tmp_path, command, size,
                                                                  again, hint):
    """A terminal's Ctrl-C reaches the whole process group: it killed the measuring workers
    (one caught importing TVM printed a traceback), and TVM turned the KeyboardInterrupt
    raised in its callbacks into unrelated tracebacks. The workers now lead sessions of their
    own; the job ends after the round (tune) or chunk (collect) under way, keeping what was
    measured, all of it sound, with one line and exit 130; started again, it goes on."""
    log = str(tmp_path / "mm.json")
    cmd, env, job = start_job(command, log, size, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    os.killpg(job.pid, signal.SIGINT)  # as a terminal sends it: to every process of the job
    stderr = job.communicate(timeout=300)[1]
    assert job.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr
    assert stderr.rstrip().endswith(f"interrupted: {log} keeps every measurement made before "
                                    f"it; {hint}")
    kept = open(log).read().splitlines()
    assert size <= len(kept) < 40  # what was measured before Ctrl-C, and its round
    assert all(json.loads(x)["r"][1] == 0 for x in kept)  # no failure of a killed worker

    done = subprocess.run(cmd + again, cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    final = open(log).read().splitlines()
    assert final[:len(kept)] == kept and len(final) == 40
    assert len({json.dumps(json.loads(x)["i"]) for x in final}) == 40  # none measured twice


def test_sigterm_to_compare_stops_its_tuning_child_after_the_round(tmp_path):
    """``kill`` of a compare process left its tune child measuring on its own (and a rerun of
    the compare beside it would have written the same log). Now compare passes SIGTERM on,
    the child ends its round and keeps its log whole, and both end with one line each and
    the exit code of SIGTERM."""
    out = str(tmp_path / "cmp")
    log = os.path.join(out, "logs", "gnn-seed0.json")
    compare = ["compare", *MATMUL, "--models", "gnn", "--trials", "40", "--seeds", "1",
               "--measures-per-round", "8", "--no-build"]
    _, _, job = start_job(compare, log, 8, out=out, stderr=subprocess.PIPE, text=True)
    children = psutil.Process(job.pid).children()
    assert len(children) == 1
    job.send_signal(signal.SIGTERM)  # to compare alone, as kill PID sends it
    stderr = job.communicate(timeout=300)[1]
    assert job.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    assert "Traceback" not in stderr
    assert f"terminated: {log} keeps every measurement made before it" in stderr  # the child's
    assert stderr.rstrip().endswith("terminated: the same compare command again reuses the "
                                    "finished runs and resumes the one under way")
    gone, alive = psutil.wait_procs(children, timeout=5)
    assert not alive, "the tuning child outlived compare"
    kept = open(log).read().splitlines()
    assert 8 <= len(kept) < 40 and len(kept) % 8 == 0  # whole rounds
    assert all(json.loads(x)["r"][1] == 0 for x in kept)
