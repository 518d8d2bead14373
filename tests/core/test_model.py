"""GNN, losses and online trainer on synthetic graphs (no TVM needed)."""
import math

import numpy as np
import pytest
import torch

from tvm_gnn_cost.core.batching import task_batches
from tvm_gnn_cost.core.config import ModelConfig, TrainerConfig
from tvm_gnn_cost.core.graph import ProgramGraph, batch_graphs
from tvm_gnn_cost.core.labels import FAILED_COST, log_throughput, normalized_throughput
from tvm_gnn_cost.core.losses import (lambdarank_loss, listmle_loss, make_loss, pairwise_loss,
                                      weighted_pairwise_loss)
from tvm_gnn_cost.core.model import ProgramGNN
from tvm_gnn_cost.core.metrics import (pairwise_accuracy, pairwise_by_ratio, per_task_share,
                                       recall_at_k, throughput_errors, topk_score)
from tvm_gnn_cost.core.trainer import OnlineTrainer

N_FEAT = 12


def synthetic(n, seed=0, n_tasks=2):
    """Chains of 1-4 stages; cost grows with feature 0 of the first node and feature 1 of the last."""
    rng = np.random.default_rng(seed)
    graphs, tasks, costs = [], [], []
    for _ in range(n):
        k = int(rng.integers(1, 5))
        feats = rng.normal(size=(k, N_FEAT)).astype(np.float32)
        src = np.arange(k - 1, dtype=np.int64)
        graphs.append(ProgramGraph(feats, src, src + 1))
        t = int(rng.integers(n_tasks))
        tasks.append(f"task{t}")
        costs.append(float(np.exp(0.8 * feats[0, 0] - 0.6 * feats[-1, 1] + t)))
    return graphs, tasks, costs


def make_trainer(readout="sum-max", **kw):
    # no wall-clock cap: results must not depend on how busy the machine is
    cfg = TrainerConfig(num_warmup_sample=8, max_steps=150, max_epochs=200,
                        max_update_seconds=1e9, **kw)
    return OnlineTrainer(N_FEAT, ModelConfig(hidden=32, layers=2, readout=readout), cfg)


def test_batch_offsets_edges():
    g1 = ProgramGraph(np.ones((2, 3), np.float32), np.array([0]), np.array([1]))
    g2 = ProgramGraph(np.zeros((3, 3), np.float32), np.array([0, 1]), np.array([2, 2]))
    b = batch_graphs([g1, g2])
    src, dst = b.graph.edges()
    assert src.tolist() == [0, 2, 3] and dst.tolist() == [1, 4, 4]
    assert b.graph_ids.tolist() == [0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="invalid"):
        batch_graphs([g1, ProgramGraph.invalid(3)])


def _same_task_pairs(batches, groups):
    counts = [np.bincount(groups[b.numpy()]) for b in batches]
    return sum(int((c * (c - 1)).sum() // 2) for c in counts)


def test_task_batches_keep_runs_of_a_task_together_and_use_every_record_once():
    groups = np.repeat(np.arange(130), 48)  # the shipped corpus' shape: 130 tasks, 48 a task
    groups = groups[np.random.default_rng(0).permutation(len(groups))]
    runs = task_batches(groups, 256, 32, torch.Generator().manual_seed(0))
    plain = task_batches(groups, 256, 0, torch.Generator().manual_seed(0))
    for batches in (runs, plain):
        idx = np.concatenate([b.numpy() for b in batches])
        assert sorted(idx.tolist()) == list(range(len(groups)))  # each record once
        assert max(len(b) for b in batches) <= 256
    # each task is cut into a run of 32 and one of 16, and a run is never split (both runs
    # of a task can land in one batch)
    for b in runs:
        counts = np.bincount(groups[b.numpy()])
        assert set(counts[counts > 0].tolist()) <= {16, 32, 48}
    # at least 130 x (C(32, 2) + C(16, 2)) = 80,080 same-task pairs an epoch
    assert _same_task_pairs(runs, groups) >= 130 * (32 * 31 // 2 + 16 * 15 // 2)
    assert _same_task_pairs(plain, groups) < 0.1 * _same_task_pairs(runs, groups)
    again = task_batches(groups, 256, 32, torch.Generator().manual_seed(0))
    assert all(torch.equal(a, b) for a, b in zip(runs, again))  # same generator, same batches


def test_labels_are_per_task_throughput_and_failures_are_worst():
    tr = make_trainer()
    g = synthetic(5)[0]
    tr.add(g, ["a", "a", "b", "b", "a"], [2.0, 1.0, 4.0, FAILED_COST, float("nan")])
    np.testing.assert_allclose(tr.labels(), [0.5, 1.0, 1.0, 0.0, 0.0])


def test_log_throughput_labels_compare_tasks_and_do_not_move():
    tr = make_trainer(loss="pairwise+logmse")
    g = synthetic(5)[0]
    tr.add(g[:3], ["a", "a", "b"], [2e-3, 1e-3, FAILED_COST])
    np.testing.assert_allclose(tr.labels(), [-np.log(2), 0.0, -np.inf])
    tr.add(g[3:], ["a", "b"], [5e-4, 4e-3])  # a faster program of "a" leaves the others' labels
    np.testing.assert_allclose(tr.labels(), [-np.log(2), 0.0, -np.inf, np.log(2), -np.log(4)])
    np.testing.assert_allclose(log_throughput([1e-3, float("inf"), -1.0, 1e-4]),
                               [0.0, -np.inf, -np.inf, np.log(10)])


def test_per_task_share_divides_by_each_tasks_best():
    share = per_task_share(np.array([2.0, 4.0, 1.0, -np.inf, 3.0]), np.array([0, 0, 1, 1, 1]))
    np.testing.assert_allclose(share, [0.5, 1.0, 1 / 3, 0.0, 1.0])


@pytest.mark.parametrize("loss,readout", [("pairwise+mse", "sum-max"),
                                          ("pairwise+logmse", "sum-max"),
                                          ("listmle+mse", "sum-max"),
                                          ("pairwise+mse", "attention")])
def test_training_lowers_the_loss_and_ranks_held_out_programs(loss, readout):
    graphs, tasks, costs = synthetic(400)
    tr = make_trainer(loss=loss, readout=readout)
    tr.add(graphs[:300], tasks[:300], costs[:300])
    y = tr.labels()
    groups = np.array(tr.groups)
    tr.model.set_normalization(torch.from_numpy(np.concatenate([g.features for g in graphs])))
    before = tr.loss_on(graphs[:300], y, groups)
    stats = tr.fit()
    after = tr.loss_on(graphs[:300], y, groups)
    assert stats is not None and stats.steps > 0
    assert after < 0.7 * before
    scores = tr.predict(graphs[300:])
    acc = pairwise_accuracy(scores, -np.array(costs[300:]), np.array(tasks[300:]))
    assert acc > 0.75


def test_same_seed_same_scores_and_repeatable():
    graphs, tasks, costs = synthetic(120, seed=3)
    a, b = make_trainer(seed=7), make_trainer(seed=7)
    for tr in (a, b):
        tr.add(graphs[:100], tasks[:100], costs[:100])
        tr.fit()
    pa, pb = a.predict(graphs[100:]), b.predict(graphs[100:])
    np.testing.assert_array_equal(pa, pb)
    np.testing.assert_array_equal(pa, a.predict(graphs[100:]))
    assert (pa > 0).all()


def test_before_warmup_scores_are_deterministic_and_positive():
    graphs = synthetic(20)[0] + [ProgramGraph.invalid(N_FEAT)]
    tr = make_trainer()
    s1, s2 = tr.predict(graphs), tr.predict(graphs)
    np.testing.assert_array_equal(s1, s2)
    assert s1[-1] == -np.inf
    assert ((s1[:-1] > 0) & (s1[:-1] < 1)).all()
    assert len(set(s1[:-1])) == 20
    assert tr.fit() is None  # nothing to learn yet


def test_exploration_noise_fades_with_a_tasks_own_records():
    graphs, tasks, costs = synthetic(120, seed=5)
    tr = make_trainer(explore_records=20, explore_sigma=1.0)
    tr.add(graphs[:100], ["seen"] * 100, costs[:100])
    tr.fit()
    held = graphs[100:]
    plain = tr.predict(held)
    np.testing.assert_array_equal(plain, tr.predict(held, "seen"))  # 100 records: no noise
    new = tr.predict(held, "new")
    np.testing.assert_array_equal(new, tr.predict(held, "new"))  # deterministic
    ratio = np.log(new / plain)
    assert 0 < np.abs(ratio).max() <= np.sqrt(3.0) + 1e-9  # noise within +-sqrt(3) sigma
    tr.add(graphs[100:110], ["new"] * 10, costs[100:110])
    assert tr.exploration("new") == pytest.approx(0.5)
    tr.add(graphs[110:120], ["new"] * 5 + ["new"] * 5, [FAILED_COST] * 5 + costs[115:120])
    assert tr.exploration("new") == pytest.approx(0.25)  # failures do not count


def test_all_failed_history_does_not_train():
    graphs = synthetic(20)[0]
    tr = make_trainer()
    tr.add(graphs, ["t"] * 20, [FAILED_COST] * 20)
    assert tr.fit() is None
    assert not tr.ready


def test_ranking_losses_prefer_the_right_order():
    y = torch.tensor([1.0, 0.5, 0.2, 0.9])
    g = torch.tensor([0, 0, 0, 1])
    right = torch.tensor([3.0, 2.0, 1.0, 0.0])
    wrong = torch.tensor([1.0, 2.0, 3.0, 0.0])
    for fn in (pairwise_loss, lambdarank_loss, weighted_pairwise_loss, make_loss("pairwise+mse"),
               make_loss("wpairwise+mse"), listmle_loss, make_loss("listmle+mse")):
        assert fn(right, y, g) < fn(wrong, y, g)
    log_y = torch.tensor([0.5, -0.2, -float("inf"), 1.0])  # a failure is the worst of task 0
    logmse = make_loss("pairwise+logmse")
    exact = torch.tensor([0.5, -0.2, -3.0, 1.0])
    assert logmse(exact, log_y, g) < logmse(right, log_y, g)  # the values count, too
    assert logmse(exact, log_y, g) < logmse(torch.tensor([-0.2, 0.5, -3.0, 1.0]), log_y, g)
    assert torch.isfinite(logmse(right, torch.full((4,), -float("inf")), g))


def test_listmle_is_the_plackett_luce_likelihood_of_the_measured_order():
    """By hand on three programs of one task (measured order 0, 2, 1) and a task of one."""
    y = torch.tensor([1.0, 0.2, 0.5, 0.7])
    g = torch.tensor([0, 0, 0, 1])
    r = torch.tensor([0.5, 1.0, -1.0, 3.0])
    lse = torch.logsumexp
    # position 1: program 0 among {0, 1, 2}; 2: program 2 among {1, 2}; 3: program 1 alone
    expected = ((lse(r[:3], 0) - r[0]) + (lse(r[1:3], 0) - r[2]) + 0.0) / 3
    assert listmle_loss(r, y, g).item() == pytest.approx(expected.item(), rel=1e-6)


def test_attention_readout_scores_each_graph_on_its_own():
    """A graph's score depends on its own nodes only, not on the batch around it or the
    order of its nodes (the softmax runs over each graph's nodes)."""
    torch.manual_seed(0)
    graphs = synthetic(6, seed=2)[0]
    model = ProgramGNN(N_FEAT, ModelConfig(hidden=16, layers=2, readout="attention")).eval()
    with torch.no_grad():
        together = model(batch_graphs(graphs))
        alone = torch.cat([model(batch_graphs([gr])) for gr in graphs])
        g = graphs[3]
        perm = np.arange(g.features.shape[0])[::-1].copy()
        inv = np.argsort(perm)
        flipped = ProgramGraph(g.features[perm], inv[g.src], inv[g.dst])
        assert model(batch_graphs([flipped])).item() == pytest.approx(alone[3].item(), rel=1e-5)
    np.testing.assert_allclose(together.numpy(), alone.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="readout"):
        ProgramGNN(N_FEAT, ModelConfig(readout="mean"))


def test_input_noise_is_for_training_only():
    """ModelConfig.input_noise perturbs the features in training mode; scoring is unchanged."""
    torch.manual_seed(0)
    batch = batch_graphs(synthetic(6, seed=3)[0])
    model = ProgramGNN(N_FEAT, ModelConfig(hidden=16, layers=2, input_noise=0.5))
    plain = ProgramGNN(N_FEAT, ModelConfig(hidden=16, layers=2))
    plain.load_state_dict(model.state_dict())
    with torch.no_grad():
        model.train()
        assert not torch.allclose(model(batch), model(batch))
        model.eval()
        torch.testing.assert_close(model(batch), plain.eval()(batch))


def test_store_rows_are_batched_per_graph_and_scored_with_it():
    """Per-store rows (FeaturizerConfig.lowered) follow their graph through batching, and
    change its score."""
    torch.manual_seed(0)
    graphs = synthetic(3, seed=4)[0]
    rng = np.random.default_rng(0)
    for g, n in zip(graphs, (2, 0, 3)):  # a program whose lowering failed has no rows
        g.stores = rng.uniform(0, 20, size=(n, 5)).astype(np.float32)
    b = batch_graphs(graphs)
    assert b.store_ids.tolist() == [0, 0, 2, 2, 2] and tuple(b.stores.shape) == (5, 5)
    model = ProgramGNN(N_FEAT, ModelConfig(hidden=16, layers=1), n_store_features=5).eval()
    with torch.no_grad():
        together = model(b)
        alone = torch.cat([model(batch_graphs([g])) for g in graphs])
        np.testing.assert_allclose(together.numpy(), alone.numpy(), rtol=1e-5, atol=1e-6)
        graphs[0].stores = graphs[0].stores * 0.5
        assert model(batch_graphs(graphs[:1])).item() != pytest.approx(alone[0].item())


def test_weighted_pairwise_loss_counts_close_pairs_less():
    """Pair weights |ln(y_i / y_j)| / ln 2, at most 1: by hand on three programs of one task."""
    y = torch.tensor([1.0, 0.9, 0.25])
    g = torch.zeros(3, dtype=torch.int64)
    r = torch.tensor([1.0, 0.0, 0.0])
    w = [math.log(1 / 0.9) / math.log(2), 1.0, 1.0]  # (0, 1) 1.11x; (0, 2) 4x; (1, 2) 3.6x
    sp = [math.log1p(math.exp(-1.0)), math.log1p(math.exp(-1.0)), math.log(2.0)]  # softplus(-diff)
    expected = sum(a * b for a, b in zip(w, sp)) / sum(w)
    assert weighted_pairwise_loss(r, y, g).item() == pytest.approx(expected, rel=1e-6)
    # all pairs 2x or more apart: plain RankNet
    y2 = torch.tensor([1.0, 0.5, 0.25])
    assert weighted_pairwise_loss(r, y2, g).item() == pytest.approx(pairwise_loss(r, y2, g).item())


def test_a_task_measured_only_slow_is_learned_as_slow_on_log_throughput():
    """The point of log-throughput labels: a task whose every measured program is of a slow
    family. Normalized per task, its slowest programs are "the best there is" (label 1); on
    log throughput they are slow, so what another task taught about the fast family carries
    over. Programs: a task-identity feature, a family feature (family 1 is 100x slower), noise."""
    rng = np.random.default_rng(0)

    def programs(task, family, n):
        feats = rng.normal(size=(n, 2, N_FEAT)).astype(np.float32)
        feats[:, :, 0], feats[:, :, 1] = family, 2.0 * task
        cost = 1e-3 * (3.0 if task else 1.0) * (100.0 if family else 1.0) * np.exp(
            0.3 * feats[:, 0, 2])
        return [ProgramGraph(f, np.array([0]), np.array([1])) for f in feats], list(cost)

    other = [programs(0, family, 100) for family in (0, 1)]
    (stuck, stuck_costs), (fresh, _) = programs(1, 1, 40), programs(1, 0, 40)
    share = {}
    for loss in ("pairwise+mse", "pairwise+logmse"):
        tr = make_trainer(loss=loss)
        for graphs, costs in other:
            tr.add(graphs, ["other"] * len(graphs), costs)
        tr.add(stuck, ["stuck"] * len(stuck), stuck_costs)
        tr.fit()
        fast, slow = tr.predict(fresh, "stuck"), tr.predict(stuck, "stuck")
        share[loss] = (fast[:, None] > slow[None, :]).mean()  # fast above slow, of all pairs
    assert share["pairwise+logmse"] > 0.95
    assert share["pairwise+logmse"] > share["pairwise+mse"] + 0.05  # 0.99 vs 0.84 here


def test_bad_config_is_refused():
    with pytest.raises(ValueError, match="loss"):
        OnlineTrainer(N_FEAT, trainer_config=TrainerConfig(loss="hinge"))


def test_pairwise_accuracy_on_a_known_case():
    # task a: scores order 3 of the 3 pairs right; task b: 0 of 1.
    acc = pairwise_accuracy(np.array([3.0, 2.0, 1.0, 0.0, 1.0]),
                            np.array([3.0, 2.0, 1.0, 0.0, 1.0]) * [1, 1, 1, -1, -1],
                            np.array(["a", "a", "a", "b", "b"]))
    assert acc == pytest.approx(3 / 4)


def test_pairwise_accuracy_by_cost_ratio_on_a_known_case():
    # task a, costs 1.0, 1.05, 1.5, 4.0, scores 1, 2, 2, 0. Pairs by ratio: 1.05 wrong |
    # 1.5 wrong, 1.43 tie (half) | 4.0, 3.81, 2.67 right
    # task b, costs 2.0, 2.4: ratio 1.2, ordered right
    scores = np.array([1.0, 2.0, 2.0, 0.0, 5.0, 1.0])
    costs = np.array([1.0, 1.05, 1.5, 4.0, 2.0, 2.4])
    groups = np.array(["a", "a", "a", "a", "b", "b"])
    got = pairwise_by_ratio(scores, costs, groups)
    assert [n for n, _ in got] == [1, 1, 2, 3]
    assert [acc for _, acc in got] == pytest.approx([0.0, 1.0, 0.25, 1.0])
    # the buckets add up to the overall pairwise accuracy
    overall = sum(n * acc for n, acc in got) / sum(n for n, _ in got)
    assert overall == pytest.approx(pairwise_accuracy(scores, -costs, groups))
    assert np.isnan(pairwise_by_ratio(scores[:2], costs[:2], groups[:2], edges=(2.0,))[1][1])
    with pytest.raises(ValueError, match="drop failed"):
        pairwise_by_ratio(scores, np.append(costs[:-1], np.inf), groups)


def test_topk_recall_and_errors_on_a_known_case():
    inf = float("inf")
    # task a: best 1.0 (program 1), the model ranks program 0 (cost 2.0) first, program 1 second
    # task b: best 4.0 (program 4), the model ranks it first; program 5 failed
    scores = np.array([0.9, 0.8, 0.1, 0.5, 0.7, 0.6])
    costs = np.array([2.0, 1.0, 3.0, 8.0, 4.0, inf])
    groups = np.array(["a", "a", "a", "b", "b", "b"])
    # top-1: (1 + 4) / (2 + 4); weighted 3:1: (3*1 + 4) / (3*2 + 4)
    assert topk_score(scores, costs, groups, 1) == pytest.approx(5 / 6)
    assert topk_score(scores, costs, groups, 1, {"a": 3, "b": 1}) == pytest.approx(7 / 10)
    assert topk_score(scores, costs, groups, 2) == 1.0
    # recall@2: a: {0,1} vs {1,0} -> 1; b: {4,5} vs {4,3} -> 1/2
    assert recall_at_k(scores, costs, groups, 2) == pytest.approx(0.75)
    y = normalized_throughput(costs, groups)
    np.testing.assert_allclose(y, [0.5, 1.0, 1 / 3, 0.5, 1.0, 0.0])
    rmse, mape = throughput_errors(y, costs, groups)
    assert rmse == 0 and mape == 0
    pred = y + np.array([0.1, -0.2, 0.0, 0.0, 0.0, 5.0])  # the failed program does not count
    rmse, mape = throughput_errors(pred, costs, groups)
    assert rmse == pytest.approx(np.sqrt((0.01 + 0.04) / 5))
    assert mape == pytest.approx((0.1 / 0.5 + 0.2 / 1.0) / 5)


def test_an_anchor_keeps_fine_tuned_weights_near_the_adopted_ones():
    """Fine-tuning adopted weights on a few records of another relation pulls them away and
    loses what they knew; ``TrainerConfig.anchor`` (L2-SP) keeps them near and keeps more."""
    graphs, tasks, costs = synthetic(400)
    pre = make_trainer()
    pre.add(graphs[:300], tasks[:300], costs[:300])
    pre.fit()
    weights = {k: v.clone() for k, v in pre.model.state_dict().items()}
    known = pairwise_accuracy(pre.predict(graphs[300:]), -np.array(costs[300:]),
                              np.array(tasks[300:]))
    new_graphs, new_tasks, new_costs = synthetic(48, seed=1)
    new_costs = [1.0 / c for c in new_costs]  # a job where the pretrained order is wrong
    kept, moved = {}, {}
    for anchor in (0.0, 1.0):
        tuned = make_trainer(anchor=anchor)
        tuned.adopt(weights, tuned.config)
        tuned.add(new_graphs, new_tasks, new_costs)
        tuned.fit()
        assert (tuned.anchor is not None) == bool(anchor)  # no copy where nothing anchors
        moved[anchor] = math.sqrt(sum(float(((p.detach() - weights[n]) ** 2).sum())
                                      for n, p in tuned.model.named_parameters()))
        kept[anchor] = pairwise_accuracy(tuned.predict(graphs[300:]), -np.array(costs[300:]),
                                         np.array(tasks[300:]))
    assert moved[1.0] < 0.3 * moved[0.0]  # 0.73 against 3.92 here
    assert kept[0.0] < known - 0.1 and kept[1.0] > kept[0.0] + 0.1  # 0.39, 0.70 of 0.86
    with pytest.raises(ValueError, match="anchor"):
        OnlineTrainer(N_FEAT, trainer_config=TrainerConfig(anchor=-1.0))
