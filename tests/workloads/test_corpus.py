"""The corpus registry: three disjoint sets, every network buildable, every shipped log placed,
no task of a validation or test network in a training log."""
import glob
import gzip
import importlib
import json
import os

import pytest
import torch

from tvm_gnn_cost.workloads.corpus import NETWORKS, SPLITS, by_name, in_split

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sets_are_disjoint_and_large_enough():
    assert len(by_name()) == len(NETWORKS)  # names unique
    assert {n.split for n in NETWORKS} == set(SPLITS)
    specs = {split: {(n.network, n.layout, n.input_shape) for n in in_split(split)}
             for split in SPLITS}
    assert not specs["train"] & specs["validation"] and not specs["train"] & specs["test"]
    assert not specs["validation"] & specs["test"]
    assert len({n.network for n in NETWORKS}) >= 30
    with pytest.raises(ValueError, match="train, validation, test"):
        in_split("heldout")


@pytest.mark.parametrize("net", [n for n in NETWORKS if ":" in n.network], ids=lambda n: n.name)
def test_every_corpus_network_builds_and_runs_in_torch(net):
    module_name, _, func = net.network.partition(":")
    module, inputs = getattr(importlib.import_module(module_name), func)()
    inputs = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
    with torch.no_grad():
        out = module(*inputs)
    outs = out if isinstance(out, tuple) else (out,)  # detectors and necks give several
    assert outs and all(torch.isfinite(o).all() for o in outs)


def test_every_shipped_log_is_a_registered_network_of_its_set():
    logs = glob.glob(os.path.join(REPO, "data", "*", "*.json.gz"))
    logs += glob.glob(os.path.join(REPO, "data", "corpus", "*", "*.json.gz"))  # kept apart
    logs = [p for p in logs if not p.endswith(".tasks.json.gz")]
    assert logs
    names = by_name()
    for path in logs:
        split = os.path.basename(os.path.dirname(path))
        if split == "deep":  # extra training programs of resnet-18 / -50, not a set
            continue
        name = os.path.basename(path)[:-len(".json.gz")]
        assert name in names and names[name].split == split, path
        assert os.path.exists(path[:-len(".json.gz")] + ".tasks.json.gz"), path


def _workloads(split):
    """Workload keys of each shipped log of ``split`` (``data/SPLIT``, the logs kept apart in
    ``data/corpus/SPLIT``, and for training the imported logs of ``data/imported/``), by
    network name."""
    out = {}
    folders = [("data", split), ("data", "corpus", split)]
    if split == "train":
        folders.append(("data", "imported", "*"))
    paths = [p for folder in folders for p in glob.glob(os.path.join(REPO, *folder, "*.json.gz"))]
    for path in paths:
        if not path.endswith(".tasks.json.gz"):
            with gzip.open(path, "rt") as f:
                out[os.path.basename(path)[:-len(".json.gz")]] = {
                    json.loads(line)["i"][0][0] for line in f}
    return out


def test_no_training_log_holds_a_task_of_a_validation_or_test_network():
    """A held-out task that a training network holds too is not held out: ``evaluate`` leaves
    such tasks out, but the shipped prior would know them when a benchmark tunes that network.
    The one known case is squeezenet's softmax over 1000 classes, a task of the first
    dataset's resnets and mobilenet as well (data/README.md)."""
    trained = set().union(*_workloads("train").values())
    for split in ("validation", "test"):
        for name, keys in _workloads(split).items():
            shared = keys & trained
            if name == "squeezenet":
                assert len(shared) == 1 and "[1, 1000]" in next(iter(shared)), shared
            else:
                assert not shared, (name, sorted(shared))


def test_collect_args_rebuild_a_network(tmp_path):
    net = by_name()["resnet-18-160"]
    assert net.collect_args() == ["--network", "resnet-18", "--desired-layout", "NHWC",
                                  "--input-shape", "160,160,3"]
    assert net.log("data") == os.path.join("data", "train", "resnet-18-160.json.gz")


def test_the_data_card_and_readme_count_what_data_holds():
    """The record and log counts the data card and the README give, recounted from the files
    (they went stale once: 25,320 records said where the three sets held 27,264)."""
    import re

    counts = {}
    for folder in ("train", "validation", "test", os.path.join("corpus", "train"), "deep",
                   os.path.join("imported", "tlcbench-platinum-8358")):
        logs = [p for p in glob.glob(os.path.join(REPO, "data", folder, "*.json.gz"))
                if not p.endswith(".tasks.json.gz")]
        records = 0
        for path in logs:
            with gzip.open(path, "rt") as f:
                records += sum(1 for line in f if line.strip() and not line.startswith("#"))
        counts[folder] = (len(logs), records)
    sets = [counts[s] for s in ("train", "validation", "test")]
    in_sets = sum(r for _, r in sets)
    total = sum(r for _, r in counts.values())
    # prose is wrapped anywhere: compare with the line breaks as spaces
    card = " ".join(open(os.path.join(REPO, "data", "README.md")).read().split())
    readme = " ".join(open(os.path.join(REPO, "README.md")).read().split())

    def said(n):
        return f"{n:,}"

    assert card.startswith(f"# Data card: {said(total)} measured programs, "
                           f"{sum(n for n, _ in counts.values())} logs")
    assert re.search(rf"The three sets hold {said(in_sets)} in {sum(n for n, _ in sets)} logs: "
                     rf"training {said(sets[0][1])} .*\({sets[0][0]} logs.*validation "
                     rf"{said(sets[1][1])} .*\({sets[1][0]} logs.*test {said(sets[2][1])} "
                     rf".*\({sets[2][0]} logs", card)
    assert f"{said(counts[os.path.join('corpus', 'train')][1])} records of 11 more" in card
    assert f"{said(counts['deep'][1])} deeper records" in card
    imported = counts[os.path.join("imported", "tlcbench-platinum-8358")]
    assert f"and {said(imported[1])} records imported from public tuning logs" in card
    assert f"{imported[0]} logs, {said(imported[1])} records read" in card
    assert f"`data/` holds {said(total)} measured programs" in readme
    assert f"the three sets of networks hold {said(in_sets)}" in readme
