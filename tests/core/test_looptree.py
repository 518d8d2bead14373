"""The printout parser, on texts printed by TVM 0.19 (no TVM needed)."""
import pytest

from tvm_gnn_cost.core.looptree import LoopTreeError, base_names, parse_loop_tree

CPU_STATE = """Placeholder: data, kernel, bias
parallel i0.0@i1.0@i2.0@i3.0@ (0,2)
  conv2d_nhwc auto_unroll: 16
  for ry.0 (0,3)
    for rx.0 (0,3)
      for rc.0 (0,8)
        for i1 (ry_outer,14)
          for i2 (rx_outer,14)
            vectorize i3 (rc_outer * 8,8)
              pad_temp = ...
        for yy.2 (0,2)
          for rc.1 (0,8)
            for ff.3 (0,32)
              conv2d_nhwc = ...
  for i1.1 (0,14)
    for i3.1 (0,32)
      compute = ...
"""

GPU_STATE = """Placeholder: data, kernel, bias
blockIdx.x i0.0@i1.0@i2.0@i3.0@ (0,8)
  threadIdx.x i0.2@i1.2@i2.2@i3.2@ (0,49)
    conv2d_nhwc auto_unroll: 1024
    for rx.0 (0,3)
      for ax0@ax1@ax2@ax3@.0.0 (0,32)
        threadIdx.x ax0@ax1@ax2@ax3@.0.1 (0,49)
          kernel.shared = ...
      for rc.2 (0,32)
        conv2d_nhwc = ...
    for i1.3 (0,7)
      compute = ...
"""


def test_statements_and_pragmas():
    tree = parse_loop_tree(CPU_STATE)
    assert tree.placeholders == ["data", "kernel", "bias"]
    assert [s.name for s in tree.statements] == ["pad_temp", "conv2d_nhwc", "compute"]
    assert [s.auto_unroll for s in tree.statements] == [0, 16, 0]
    assert [lp.extent for lp in tree.own_loops(0)] == [14, 14, 8]
    assert tree.own_loops(0)[-1].annotation == 2  # vectorize


def test_loops_belong_to_the_stage_whose_statement_ends_them():
    tree = parse_loop_tree(CPU_STATE)
    # pad_temp is attached at conv2d's rc.0, conv2d at compute's fused parallel loop.
    assert [lp.name for lp in tree.context_loops(0)] == ["i0.0@i1.0@i2.0@i3.0@", "ry.0", "rx.0", "rc.0"]
    assert [lp.name for lp in tree.own_loops(1)] == ["ry.0", "rx.0", "rc.0", "yy.2", "rc.1", "ff.3"]
    assert [lp.name for lp in tree.context_loops(1)] == ["i0.0@i1.0@i2.0@i3.0@"]
    assert [lp.name for lp in tree.own_loops(2)] == ["i0.0@i1.0@i2.0@i3.0@", "i1.1", "i3.1"]
    assert tree.context_loops(2) == []


def test_gpu_annotations():
    tree = parse_loop_tree(GPU_STATE)
    shared = [s.name for s in tree.statements].index("kernel.shared")
    anns = [lp.annotation for lp in tree.context_loops(shared)]
    assert anns == [5, 6, 0]  # blockIdx.x, threadIdx.x, for
    assert tree.own_loops(shared)[-1].annotation == 6
    assert tree.statements[1].auto_unroll == 1024


def test_unbound_state_is_refused():
    with pytest.raises(LoopTreeError, match="bound-inferred"):
        parse_loop_tree("Placeholder: A\nfor i (None)\n  C = ...\n")
    with pytest.raises(LoopTreeError, match="cannot read"):
        parse_loop_tree("Placeholder: A\nbogus line here\n")


@pytest.mark.parametrize("name,expected", [
    ("nn.0@yy.0@xx.0@", ["nn", "yy", "xx"]),
    ("rc.1", ["rc"]),
    ("ax0@ax1@ax2@ax3@.0.1", ["ax0", "ax1", "ax2", "ax3"]),
    ("i.c.0", ["i"]),
])
def test_base_names(name, expected):
    assert base_names(name) == expected
