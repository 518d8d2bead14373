"""The prior's weight and the mix of prior and online scores (TVM-free)."""
import numpy as np
import pytest

from tvm_gnn_cost.core.prior import blend_scores, prior_weight


def test_the_prior_leads_a_task_until_it_has_prior_records_of_its_own():
    assert prior_weight(0, 16) == 1.0
    assert prior_weight(16, 16) == 0.5
    assert prior_weight(48, 16) == 0.25
    assert prior_weight(0, 0) == 1.0 and prior_weight(1, 0) == 0.0
    with pytest.raises(ValueError):
        prior_weight(3, -1)


def test_scores_mix_as_a_weighted_geometric_mean_and_unreadable_states_stay_out():
    prior = np.array([4.0, 1.0, -np.inf, 2.0])
    online = np.array([1.0, 4.0, 3.0, -np.inf])
    mixed = blend_scores(prior, online, 0.5)
    np.testing.assert_allclose(mixed[:2], [2.0, 2.0])
    assert np.isneginf(mixed[2:]).all()
    np.testing.assert_allclose(blend_scores(prior, online, 0.25)[:2], [4 ** 0.25, 4 ** 0.75])
    np.testing.assert_array_equal(blend_scores(prior, online, 1.0), prior)
    np.testing.assert_array_equal(blend_scores(prior, online, 0.0), online)
    assert np.isfinite(blend_scores(np.array([0.0]), np.array([1.0]), 0.5)).all()
    with pytest.raises(ValueError, match="shape"):
        blend_scores(prior, online[:2], 0.5)
    with pytest.raises(ValueError, match="w_prior"):
        blend_scores(prior, online, 1.5)
