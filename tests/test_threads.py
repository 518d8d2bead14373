"""TVM's runtime runs programs on every physical core the process may use, unless the user
says otherwise: checked on TVM itself, in fresh processes (its pool reads the setting once)."""
import os
import subprocess
import sys

import pytest

from tvm_gnn_cost.threads import THREAD_VARIABLES, physical_cores

ASK_TVM = ("from tvm_gnn_cost.threads import use_every_core; n = use_every_core(); import tvm; "
           "print(n, tvm.get_global_func('runtime.NumThreads')())")


def _threads(env_extra: dict) -> tuple:
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", ASK_TVM], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return int(out[0]), int(out[1])


def test_physical_cores_counts_each_core_once():
    cpus = os.sched_getaffinity(0)
    assert 1 <= physical_cores() <= len(cpus)
    assert physical_cores({min(cpus)}) == 1


def test_tvm_runs_on_every_physical_core_by_default():
    said, tvm_uses = _threads({})
    assert said == tvm_uses == physical_cores()


@pytest.mark.parametrize("name", THREAD_VARIABLES)
def test_a_users_thread_setting_is_kept(name):
    assert _threads({name: "1"}) == (1, 1)


@pytest.mark.parametrize("value", ["", "all"])
def test_a_setting_that_is_no_count_is_read_as_tvm_reads_it(value):
    # TVM reads the variable with atoi: set but no number is one thread, not the default
    assert _threads({"TVM_NUM_THREADS": value}) == (1, 1)
