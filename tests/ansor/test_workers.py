"""Measurement processes kept for a tuning job: reused, restarted when they die, stopped after."""
import psutil
from tvm import auto_scheduler
from tvm.auto_scheduler import measure
from tvm.contrib import popen_pool

from tvm_gnn_cost.ansor.measure import TUNING
from tvm_gnn_cost.ansor.sampling import sample_states
from tvm_gnn_cost.ansor.workers import persistent_workers


def _workers() -> set:
    """Live TVM worker processes started by this one."""
    return {p.pid for p in psutil.Process().children(recursive=True)
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE
            and "tvm.exec.popen_worker" in " ".join(p.cmdline())}


def _measure(task, states, runner=None):
    """One of ProgramMeasurer's batches: build all, then run them one by one."""
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]
    builds = auto_scheduler.LocalBuilder(n_parallel=2).build(inputs, verbose=0)
    return list((runner or TUNING.runner()).run(inputs, builds, verbose=0))


def test_workers_are_kept_across_batches_restarted_when_they_die_and_stopped_after(matmul_task):
    states = sample_states(matmul_task, 12, seed=5)
    before = _workers()
    assert all(int(r.error_no) == 0 for r in _measure(matmul_task, states[:4]))
    assert _workers() - before == set()  # TVM alone: every batch's processes are gone after it

    with persistent_workers():
        first = _measure(matmul_task, states[:4])
        kept = _workers() - before
        with persistent_workers():  # nested: the outer block's processes, left running
            second = _measure(matmul_task, states[4:8])
        assert _workers() - before == kept and len(kept) == 3  # 2 builders, 1 runner, reused
        assert all(int(r.error_no) == 0 and r.costs[0].value > 0 for r in first + second)

        for pid in kept:  # killed while idle: the next batch starts them again, loses nothing
            psutil.Process(pid).kill()
        psutil.wait_procs([psutil.Process(p) for p in kept if psutil.pid_exists(p)], timeout=5)
        assert all(int(r.error_no) == 0 for r in _measure(matmul_task, states[8:]))

        # a run that times out kills the runner; the next batch gets a new one
        too_long = auto_scheduler.LocalRunner(timeout=1, number=1, repeat=1, min_repeat_ms=3000)
        timed_out = _measure(matmul_task, states[:2], runner=too_long)
        assert all(int(r.error_no) != 0 for r in timed_out)
        assert all(int(r.error_no) == 0 for r in _measure(matmul_task, states[2:4]))
        during = _workers() - before

    assert measure.PopenWorker is popen_pool.PopenWorker  # TVM's own again
    assert measure.PopenPoolExecutor is popen_pool.PopenPoolExecutor
    assert not (_workers() & during)  # the kept processes are stopped
