"""Transform steps as node tokens: the stage each step lands on after Ansor's insertions."""
import math

import numpy as np

from tvm_gnn_cost.core.steps import (STEP_KINDS, TOKEN_WIDTH, final_stages, step_token_names,
                                     step_tokens)

SP = STEP_KINDS.index("SP")


def test_cache_write_and_rfactor_insert_before_cache_read_after():
    # Stages 0..3. A cache write on 2 puts the cache stage at 2 and moves stage 2 to 3;
    # a cache read of 1 puts the read stage at 2, after 1; an rfactor of the last stage
    # (now 5) puts its rf stage at 5.
    steps = [["CHW", 2, "local"], ["SP", 2, 0, 8, [4], 1], ["SP", 3, 0, 8, [2], 1],
             ["CHR", 1, "shared", [2]], ["AN", 2, 0, 3], ["RF", 5, 0, 1], ["CA", 5, 6, 0]]
    owners, n = final_stages(steps, 4)
    assert n == 7
    # CHW names the computing stage (final 4); its cache stage ends at 3, stage 3 at 6,
    # and the rf stage, computed at stage 3, at 5.
    assert owners == [4, 3, 4, 1, 2, 6, 5]


def test_a_step_on_a_missing_stage_gives_no_replay():
    assert final_stages([["SP", 7, 0, 8, [2], 1]], 3) is None


def test_tokens_hold_each_nodes_first_k_steps_in_order():
    steps = [["SP", 1, 0, 64, [4, 2], 1], ["AN", 1, 0, 3], ["CI", 0], ["FU", 2, [0, 1]],
             ["AN", 1, 3, 2], ["PR", 1, 0, "auto_unroll_max_step$16"]]
    # Nodes: stage 2 then stage 1 (stage 0 inlined); two tokens a node.
    tok = step_tokens(steps, 3, 3, [2, 1], k=2)
    assert tok.shape == (2, 2 * TOKEN_WIDTH)
    assert len(step_token_names(2)) == tok.shape[1]
    kinds = tok.reshape(2, 2, TOKEN_WIDTH)[:, :, :len(STEP_KINDS)]
    assert [STEP_KINDS[i] for i in kinds[1].argmax(1)] == ["SP", "AN"]  # the third is cut
    assert kinds[0, 0].argmax() == STEP_KINDS.index("FU") and kinds[0, 1].sum() == 0
    args = tok[1, len(STEP_KINDS):TOKEN_WIDTH]
    np.testing.assert_allclose(args[:3], [math.log2(65), math.log2(5), math.log2(3)])
    assert tok[1, TOKEN_WIDTH + len(STEP_KINDS) + 1 + 3] == 1.0  # AN parallel class


def test_a_replay_that_ends_elsewhere_gives_zero_tokens():
    steps = [["CHW", 1, "local"], ["SP", 1, 0, 8, [2], 1]]
    assert step_tokens(steps, 2, 3, [1, 2], 4).any()
    # A cache write that added two stages (a multi-output operation) is not modelled.
    assert not step_tokens(steps, 2, 4, [1, 2], 4).any()
