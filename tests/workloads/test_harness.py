"""Timing builds side by side: in turns, so that a shared host's drift hits each build alike."""
import numpy as np
import tvm
from tvm import te

from tvm_gnn_cost.workloads.harness import time_side_by_side


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


def test_nan_and_inf_outputs_are_wrong_results():
    """max(worst, nan) kept the old value: a build whose outputs were all NaN scored 0."""
    import pytest

    from tvm_gnn_cost.workloads.harness import WrongResultError, check_outputs, relative_error

    ref = [np.linspace(1, 2, 6).reshape(2, 3)]
    nan = [np.full((2, 3), np.nan)]
    assert relative_error(nan, ref) == float("inf")
    with pytest.raises(WrongResultError, match="have 6 NaN or inf value.s. where torch has "
                                               "numbers"):
        check_outputs(nan, ref, "torch")
    one_inf = [ref[0].copy()]
    one_inf[0][1, 2] = -np.inf
    with pytest.raises(WrongResultError, match="have 1 NaN or inf"):
        check_outputs(one_inf, ref, "torch")
    # a NaN in the reference where the build has a number is as wrong
    assert relative_error(ref, nan) == float("inf")
    # the same NaN and inf where the reference has them match; the rest is compared
    both = ref[0].copy()
    both[0, 0], both[1, 1] = np.nan, np.inf
    assert check_outputs([both.copy()], [both], "torch") == 0.0
    off = both.copy()
    off[0, 1] += 1.0
    with pytest.raises(WrongResultError, match="differ from torch by 5.00e-01"):
        check_outputs([off], [both], "torch")  # relative to the largest finite value, 2
    assert check_outputs([ref[0] * (1 + 1e-5)], ref, "torch") < 1e-4


def test_input_ranges_are_read_as_given_and_drawn_over():
    import pytest

    from tvm_gnn_cost.workloads.inputs import input_ranges, parse_input_ranges, random_inputs

    assert parse_input_ranges("ids:0:30522 x:-1:1") == {"ids": (0, 30522), "x": (-1, 1)}
    assert parse_input_ranges(None) == {}
    for bad in ("ids:0", "ids:[0,5]", "ids:5:5"):
        with pytest.raises(ValueError, match="--input-range"):
            parse_input_ranges(bad)
    inputs = {"ids": ((4, 64), "int64"), "mask": ((4, 64), "int64"), "x": ((4, 64), "float32")}
    ranges = input_ranges(inputs, given={"ids": (0, 1000), "x": (-1, 1)})
    assert ranges == {"ids": (0, 1000), "mask": (0, 2), "x": (-1, 1)}
    feeds = random_inputs(inputs, ranges=ranges)
    assert feeds["ids"].dtype == np.int64 and 100 < feeds["ids"].max() < 1000
    assert set(np.unique(feeds["mask"])) == {0, 1}
    assert feeds["x"].min() < 0 < feeds["x"].max() <= 1
    with pytest.raises(ValueError, match=r"names \['idx'\], which the model does not take"):
        input_ranges(inputs, given={"idx": (0, 5)})
