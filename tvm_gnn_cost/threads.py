"""How many threads TVM's CPU runtime runs a program on; TVM-free.

Without ``TVM_NUM_THREADS`` (or ``OMP_NUM_THREADS``), TVM's runtime on x86 takes half the
logical CPUs, assuming each core runs two hardware threads, and pins the thread that starts
its pool to one CPU. On a CPU without simultaneous multithreading (cloud VMs often show
their vCPUs as one thread a core) that leaves half the cores idle: every measurement of a
tuning run, and the built network, run on half the machine, while torch and ONNX Runtime on
the same host use all of it. :func:`use_every_core` sets ``TVM_NUM_THREADS`` to the physical
cores this process may run on, the count TVM meant to take, before TVM's pool starts; the
measuring workers inherit it. A user's own setting is kept.
"""
from __future__ import annotations

import logging
import os
import re
from typing import Optional

log = logging.getLogger(__name__)

#: The variables TVM's runtime reads for its thread count, in the order it reads them.
THREAD_VARIABLES = ("TVM_NUM_THREADS", "OMP_NUM_THREADS")


def physical_cores(cpus: Optional[set] = None) -> int:
    """The physical cores among ``cpus`` (default: the CPUs this process may run on), each
    core counted once however many hardware threads it has; the CPUs' count where Linux
    does not say which core a CPU belongs to."""
    cpus = set(os.sched_getaffinity(0)) if cpus is None else set(cpus)
    cores = set()
    for cpu in cpus:
        siblings = f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
        try:
            with open(siblings) as f:
                cores.add(f.read().strip())
        except OSError:
            cores.add(str(cpu))
    return max(1, len(cores))


def tvm_threads() -> int:
    """The threads TVM's runtime will use in this process, as it decides: the first of
    :data:`THREAD_VARIABLES` that is set, read as C's ``atoi`` reads it (a value that is no
    number, or is empty, means one thread), else half the logical CPUs on x86."""
    for name in THREAD_VARIABLES:
        if name in os.environ:
            return max(1, _atoi(os.environ[name]))
    logical = os.cpu_count() or 1
    return max(1, logical // 2) if _x86() else logical


def use_every_core() -> int:
    """Set ``TVM_NUM_THREADS`` to this process's physical cores where neither it nor
    ``OMP_NUM_THREADS`` is set, and return the threads TVM will use. Call it before TVM runs
    a program in this process (its thread pool reads the variable once); processes started
    afterwards (measuring workers, ``compare``'s runs) inherit it."""
    name = next((n for n in THREAD_VARIABLES if n in os.environ), None)
    if name is None:
        cores = physical_cores()
        if cores != tvm_threads():
            log.info("TVM_NUM_THREADS=%d: TVM's runtime would use %d of %d physical cores",
                     cores, tvm_threads(), cores)
        os.environ["TVM_NUM_THREADS"] = str(cores)
    elif _atoi(os.environ[name]) < 1:
        log.warning("%s=%r is no number of threads: TVM's runtime reads it as 1; unset it to "
                    "use every core, or give a count", name, os.environ[name])
    return tvm_threads()


def _atoi(text: str) -> int:
    """``text`` as C's ``atoi`` reads it: leading blanks, a sign and digits; 0 if none."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _x86() -> bool:
    return os.uname().machine in ("x86_64", "AMD64", "i686", "i386")

