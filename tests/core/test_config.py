"""Configurations: one source for each recipe, and no silent overrides."""
import pytest
import torch

from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT as SHIPPED
from tvm_gnn_cost.core.config import (ModelConfig, PretrainRecipe, TrainerConfig,
                                      config_from_dict, config_to_dict, resolve_trainer_config)


def test_the_pretraining_recipe_is_the_shipped_checkpoints():
    saved = torch.load(SHIPPED, map_location="cpu", weights_only=True)
    recipe = PretrainRecipe()
    assert config_from_dict(ModelConfig, saved["model_config"]) == recipe.model
    trainer = saved["trainer_config"]  # as pretraining leaves it: set up to fine-tune
    assert (trainer["weight_decay"], trainer["loss"]) == (recipe.trainer.weight_decay,
                                                          recipe.trainer.loss)
    assert (trainer["lr"], trainer["num_warmup_sample"]) == (recipe.pretrain.finetune_lr,
                                                             recipe.pretrain.finetune_after)


def test_a_recipe_round_trips_through_json_and_seeds_both_halves():
    recipe = PretrainRecipe().with_seed(7)
    assert recipe.trainer.seed == recipe.pretrain.seed == 7
    assert config_from_dict(PretrainRecipe, config_to_dict(recipe)) == recipe
    with pytest.raises(ValueError, match="unknown PretrainConfig settings"):
        config_from_dict(PretrainRecipe, {"pretrain": {"epochz": 3}})


def test_shortcut_arguments_and_a_config_must_not_disagree():
    assert resolve_trainer_config(None, seed=3).seed == 3
    assert resolve_trainer_config(None).seed == TrainerConfig().seed
    cfg = TrainerConfig(seed=5, num_warmup_sample=4)
    assert resolve_trainer_config(cfg) is cfg
    assert resolve_trainer_config(cfg, seed=5, num_warmup_sample=4) is cfg
    with pytest.raises(ValueError, match="seed=3 contradicts trainer_config.seed=5"):
        resolve_trainer_config(cfg, seed=3)
    with pytest.raises(ValueError, match="num_warmup_sample"):
        resolve_trainer_config(cfg, num_warmup_sample=16)
