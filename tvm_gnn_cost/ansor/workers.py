"""Measurement processes kept for a whole tuning job instead of started for every batch.

Ansor's ``ProgramMeasurer`` builds and runs a round in batches of twice the builder's
parallelism, and TVM 0.19's local builder and runner start new Python processes for every
batch: a pool of builder processes and one runner process, each importing TVM (about 1.5 s).
On a 2-core machine that is 4 batches for a round of 16 programs, and most of the round's
time (``benchmarks/bench_measure.py`` measures it). Inside :func:`persistent_workers`, TVM's
own build and run functions are unchanged; they get processes that were started once and stay
for the job. A process that times out or crashes is killed and started again, as TVM does for
the processes of one batch; one that died between batches is started again before the next.

    with persistent_workers():
        scheduler.tune(options, search_policy=policies)
"""
from __future__ import annotations

import contextlib
import subprocess
import threading
from typing import Dict, Iterator

_LOCK = threading.Lock()
_ACTIVE = [False]  # a block is open: nested ones use its processes


@contextlib.contextmanager
def persistent_workers() -> Iterator[None]:
    """Let Ansor's local builder, local runner and RPC runner reuse their worker processes
    from one batch to the next until the block ends, then stop them.

    Nested blocks share the outer block's processes.
    """
    from tvm.auto_scheduler import measure

    with _LOCK:
        nested, _ACTIVE[0] = _ACTIVE[0], True
    if nested:
        yield
        return
    from tvm.contrib import popen_pool

    pool_class, worker_class = measure.PopenPoolExecutor, measure.PopenWorker
    pools: Dict[tuple, object] = {}
    workers: Dict[tuple, object] = {}

    def kept(cache, make, args, kwargs):
        try:
            key = (args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # arguments that cannot be a key: a new one, as TVM does
            return make(*args, **kwargs)
        if key not in cache:
            cache[key] = make(*args, **kwargs)
        _forget_dead(cache[key])
        return cache[key]

    measure.PopenPoolExecutor = lambda *a, **k: kept(pools, pool_class, a, k)
    measure.PopenWorker = lambda *a, **k: kept(workers, worker_class, a, k)
    popen_pool.subprocess = _OwnSession()
    try:
        yield
    finally:
        measure.PopenPoolExecutor, measure.PopenWorker = pool_class, worker_class
        popen_pool.subprocess = subprocess
        _ACTIVE[0] = False
        for worker in workers.values():
            worker.kill()
        pools.clear()  # the last reference: the pools' __del__ kills their processes
        workers.clear()


class _OwnSession:
    """The ``subprocess`` module as TVM's ``popen_pool`` sees it inside the block: the
    processes it starts lead sessions of their own."""

    def __getattr__(self, name):
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args, **kwargs):  # pylint: disable=invalid-name
        return subprocess.Popen(*args, start_new_session=True, **kwargs)


def _forget_dead(kept) -> None:
    """Let a kept worker (or a pool's workers) that died while idle, killed by the OOM killer
    or a user, start again on its next job, instead of failing that job's program."""
    for worker in getattr(kept, "_worker_map", {kept: kept}).values():
        if not worker.is_alive():
            worker.kill()  # nothing if never started; if dead, the next send starts it anew


__all__ = ["persistent_workers"]
