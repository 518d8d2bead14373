"""Timing builds side by side: in turns, so that a shared host's drift hits each build alike."""
import numpy as np
import tvm
from tvm import te

from tvm_gnn_cost.workloads.deploy import time_side_by_side


def _matmul_timer(n: int, target):
    """A real timer: an n x n matmul built with TVM's default schedule."""
    a = te.placeholder((n, n), name="a")
    b = te.placeholder((n, n), name="b")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
    func = tvm.build(te.create_schedule(c.op), [a, b, c], target)
    dev = tvm.cpu(0)
    args = [tvm.nd.array(np.random.rand(n, n).astype("float32"), dev) for _ in range(3)]

    def timer(number, repeat, min_repeat_ms):
        return list(func.time_evaluator(func.entry_name, dev, number=number, repeat=repeat,
                                        min_repeat_ms=min_repeat_ms)(*args).results)

    return timer


def test_builds_are_timed_in_turns_and_the_bigger_one_is_slower(target):
    calls = []

    def recorded(name, timer):
        def run(number, repeat, min_repeat_ms):
            calls.append(name)
            seconds = timer(number, repeat, min_repeat_ms)
            assert len(seconds) == repeat
            return seconds
        return run

    timers = {name: recorded(name, _matmul_timer(n, target))
              for name, n in (("small", 32), ("big", 128), ("mid", 64))}
    seconds = time_side_by_side(timers, rounds=4, number=2, repeat=2, min_repeat_ms=1)
    # each round times every build once, starting one build later than the round before
    assert calls == ["small", "big", "mid", "big", "mid", "small",
                     "mid", "small", "big", "small", "big", "mid"]
    assert set(seconds) == {"small", "big", "mid"}
    # 64x the work of the small one, 8x the mid one's
    assert seconds["small"] < seconds["mid"] < seconds["big"]
    assert time_side_by_side({}) == {}
