"""Node features computed from a loop tree alone (no TVM needed)."""
import numpy as np

from tvm_gnn_cost.core.config import FeaturizerConfig
from tvm_gnn_cost.core.features import (StageStructure, feature_names, log_feature,
                                        loop_footprints)
from tvm_gnn_cost.core.looptree import parse_loop_tree

MATMUL = """Placeholder: A, B
for i.0 (0,4)
  for j.0 (0,8)
    for k.0 (0,16)
      for i.1 (0,16)
        vectorize j.1 (0,8)
          C = ...
"""


def matmul_structure() -> StageStructure:
    """C[i, j] += A[i, k] * B[k, j]: what opstats gives the featurizer for this stage."""
    return StageStructure(static=np.zeros((1, 1), np.float32), src=np.zeros(0, np.int64),
                          dst=np.zeros(0, np.int64), reduce=[frozenset({"k"})],
                          spatial_last=[frozenset({"j"})],
                          accesses=[[(frozenset({"i", "k"}), frozenset({"k"})),
                                     (frozenset({"k", "j"}), frozenset({"j"}))]],
                          float_ops=np.array([2.0]))


def test_loop_footprints_are_the_working_set_inside_each_loop():
    tree = parse_loop_tree(MATMUL)
    got = loop_footprints(tree, 0, matmul_structure(), max_loops=6)
    # Innermost first: inside j.1 A is one element, B and C 8 each; inside i.1 A 16, B 8,
    # C 128; k.0 is a reduction, so C stays 128 while A and B grow 16x; and so on.
    want = [1 + 8 + 8, 16 + 8 + 128, 256 + 128 + 128, 256 + 1024 + 1024,
            1024 + 1024 + 4096]
    assert got == [log_feature(x) for x in want] + [0.0]
    # Only the innermost max_loops loops are described.
    assert loop_footprints(tree, 0, matmul_structure(), max_loops=2) == got[:2]


def test_loop_footprints_are_extra_columns_only_when_asked():
    plain = feature_names(FeaturizerConfig())
    more = feature_names(FeaturizerConfig(loop_footprints=True, step_tokens=2))
    assert more[:len(plain)] == plain
    assert more[len(plain):len(plain) + 8] == [f"loop{k}_footprint" for k in range(8)]
    assert more[len(plain) + 8].startswith("step")
