"""Saving and loading a trained GNN: weights, configuration and feature schema, atomically.

Shared by the Ansor and MetaSchedule adapters (:class:`Checkpointed`); knows nothing of TVM.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import List, Optional, Tuple

import torch

from .config import (FeaturizerConfig, ModelConfig, PretrainRecipe, TrainerConfig,
                     config_from_dict, config_to_dict)
from .features import FEATURE_SCHEMA_VERSION
from .files import replaced_whole
from .prior import PRIOR_RECORDS, blend_scores, prior_weight
from .trainer import OnlineTrainer

FORMAT = "tvm_gnn_cost.GNNCostModel"

#: The checkpoint shipped in the package: the GNN pretrained on ``data/train`` (x86-64 CPUs with
#: AVX-512: AMD Zen 4 and Zen 5), the prior of the default model.
SHIPPED_CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                  "checkpoints", "gnn-cpu.pt")


def save_checkpoint(path: str, trainer: OnlineTrainer, featurizer_config: FeaturizerConfig,
                    feature_names: List[str], recipe: Optional[PretrainRecipe] = None) -> None:
    """Write ``trainer``'s model and settings to ``path`` (the old file is kept on a crash);
    with the pretraining ``recipe`` that made it, if any."""
    payload = {
        "format": FORMAT,
        "schema": FEATURE_SCHEMA_VERSION,
        "feature_names": list(feature_names),
        "model_config": config_to_dict(trainer.model_config),
        "trainer_config": config_to_dict(trainer.config),
        "featurizer_config": config_to_dict(featurizer_config),
        "state": trainer.state(),
    }
    if recipe is not None:
        payload["recipe"] = config_to_dict(recipe)
    with replaced_whole(path) as f:
        torch.save(payload, f)


class CheckpointError(ValueError):
    """A file that is not a checkpoint this version of tvm_gnn_cost can load; the message
    says how to get one."""


def load_checkpoint(path: str) -> Tuple[dict, ModelConfig, TrainerConfig, FeaturizerConfig]:
    """The payload and configs of a checkpoint written by :func:`save_checkpoint`.

    Raises
    ------
    CheckpointError
        If the file is not a checkpoint, is corrupt, or was written for
        another feature schema.
    FileNotFoundError
        If there is no file at ``path``.
    """
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as err:  # noqa: BLE001 - torch raises many kinds on a bad file
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CheckpointError(f"{path} is not a readable GNNCostModel checkpoint (corrupt or "
                              f"another format: {first}); write one with GNNCostModel.save() "
                              "or `tvm-gnn-cost pretrain`") from err
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a GNNCostModel checkpoint; "
                              "write one with GNNCostModel.save() or `tvm-gnn-cost pretrain`")
    if payload.get("schema") != FEATURE_SCHEMA_VERSION:
        raise CheckpointError(
            f"{path} was saved with feature schema {payload.get('schema')}, but this "
            f"tvm_gnn_cost uses schema {FEATURE_SCHEMA_VERSION}; retrain the model "
            "(update_from_file on its tuning logs) with this version")
    return (payload, config_from_dict(ModelConfig, payload["model_config"]),
            config_from_dict(TrainerConfig, payload["trainer_config"]),
            config_from_dict(FeaturizerConfig, payload["featurizer_config"]))


def check_feature_names(path: str, payload: dict, names: List[str]) -> None:
    """Refuse a checkpoint whose node features are not ``names``."""
    if payload["feature_names"] != list(names):
        raise CheckpointError(f"{path} has other node features than this tvm_gnn_cost; "
                         "retrain the model with this version")


def checkpoint_recipe(path: str) -> Optional[PretrainRecipe]:
    """The pretraining recipe saved in a checkpoint (None for one trained online only, or
    pretrained before recipes were saved)."""
    payload = load_checkpoint(path)[0]
    return config_from_dict(PretrainRecipe, payload["recipe"]) if "recipe" in payload else None


class Checkpointed:
    """``save``, ``load`` and ``load_prior`` for an adapter: it keeps ``self.trainer`` (an
    :class:`OnlineTrainer`), ``self.featurizer_config`` and ``self.feature_names``, and
    rebuilds them in ``_build(model_config, trainer_config, featurizer_config)``."""

    trainer: OnlineTrainer
    featurizer_config: FeaturizerConfig
    feature_names: List[str]
    recipe: Optional[PretrainRecipe] = None  # set by pretraining; saved with the weights
    prior: Optional[OnlineTrainer] = None  # a frozen pretrained GNN (load_prior)
    prior_file: Optional[str] = None
    prior_records: float = PRIOR_RECORDS
    n_store_features: int = 0  # per-store features the GNN reads beside its nodes' (Ansor's)

    def _build(self, mcfg: ModelConfig, tcfg: TrainerConfig, fcfg: FeaturizerConfig) -> None:
        raise NotImplementedError

    def save(self, path: str) -> None:
        """Write weights, configuration and feature schema; atomic (old file kept on a crash)."""
        save_checkpoint(path, self.trainer, self.featurizer_config, self.feature_names,
                        self.recipe)

    def adopt_pretrained(self, state: dict, recipe: PretrainRecipe) -> None:
        """Take the weights ``state`` that pretraining by ``recipe`` gave this model's GNN:
        it predicts at once, keeps the recipe (saved with the weights), does not explore
        (it ranks a new task's programs from the first round) and, when it tunes,
        fine-tunes from ``recipe.pretrain.finetune_after`` records at ``finetune_lr``, held
        near these weights by ``finetune_anchor``.

        Raises
        ------
        ValueError
            If the recipe's featurizer is not this model's: the weights would read other
            features than the ones it gives them.
        """
        if recipe.featurizer != self.featurizer_config:
            raise ValueError(f"the recipe featurizes with {recipe.featurizer}, this model with "
                             f"{self.featurizer_config}; build the model from the recipe")
        self.trainer.adopt(state, replace(
            self.trainer.config, explore_records=0,
            num_warmup_sample=recipe.pretrain.finetune_after, lr=recipe.pretrain.finetune_lr,
            anchor=recipe.pretrain.finetune_anchor))
        self.recipe = recipe

    def load_prior(self, file_name: str) -> None:
        """Keep the pretrained GNN of ``file_name`` frozen as a prior for this model.

        The online GNN keeps learning this job from its own measurements, without
        exploration noise; on each task the two scores are mixed, the prior leading
        until the task has about ``prior_records`` valid records of its own (see
        :mod:`tvm_gnn_cost.core.prior`). Unlike :meth:`load`, the pretrained weights
        are never fine-tuned, so what they learned is not erased by a few records.

        Raises
        ------
        ValueError
            If the file is not a checkpoint, or was written with other featurizer settings
            or another feature schema than this model's.
        """
        payload, mcfg, tcfg, fcfg = load_checkpoint(file_name)
        if fcfg != self.featurizer_config:
            raise ValueError(f"{file_name} was trained with {fcfg}, this model featurizes with "
                             f"{self.featurizer_config}; pass featurizer_config={fcfg} to "
                             f"{type(self).__name__} to use it as a prior")
        check_feature_names(file_name, payload, self.feature_names)
        prior = OnlineTrainer(len(self.feature_names), mcfg, replace(tcfg, explore_records=0),
                              self.n_store_features)
        prior.load_state(payload["state"])
        self.prior = prior
        self.prior_file = file_name
        self.trainer.configure(replace(self.trainer.config, explore_records=0))

    def scores(self, graphs: list, key: str):
        """Scores of ``graphs`` of the task ``key``: the online GNN's, mixed with the prior's
        where there is one (:func:`tvm_gnn_cost.core.prior.blend_scores`)."""
        if self.prior is None:
            return self.trainer.predict(graphs, key)
        prior = self.prior.predict(graphs, key)
        if not self.trainer.ready:  # its hash scores would be thrown away
            return prior
        w = prior_weight(self.trainer.task_valid.get(key, 0), self.prior_records)
        return blend_scores(prior, self.trainer.predict(graphs, key), w)

    def load(self, path: str) -> None:
        """Replace this model by the one saved in ``path`` (by either adapter); it predicts at
        once.

        Raises
        ------
        CheckpointError
            If the file is not a checkpoint, is corrupt, or was written for another feature
            schema (a ``ValueError``).
        FileNotFoundError
            If there is no file at ``path``.
        """
        payload, mcfg, tcfg, fcfg = load_checkpoint(path)
        self._build(mcfg, tcfg, fcfg)
        check_feature_names(path, payload, self.feature_names)
        self.trainer.load_state(payload["state"])
        self.recipe = (config_from_dict(PretrainRecipe, payload["recipe"])
                       if "recipe" in payload else None)


__all__ = ["FORMAT", "SHIPPED_CHECKPOINT", "Checkpointed", "check_feature_names",
           "checkpoint_recipe", "load_checkpoint", "save_checkpoint"]
