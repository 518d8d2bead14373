"""Test networks for the default-model benchmark: none is in any training log, none was used to
choose a setting, and they stay out of training data (the ``test`` set of
``tvm_gnn_cost.workloads.corpus``, where they are defined). Each function returns
(torch.nn.Module, example input) for ``tvm-gnn-cost tune --network unseen:NAME`` (run with
``benchmarks/models`` on PYTHONPATH); the name keeps the benchmark's first runs' titles.
"""
from tvm_gnn_cost.workloads.corpus.cnn import cnn, mobilenetv3_block
from tvm_gnn_cost.workloads.corpus.transformer import gpt_block

__all__ = ["cnn", "gpt_block", "mobilenetv3_block"]
