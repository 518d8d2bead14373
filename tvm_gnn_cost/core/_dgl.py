"""DGL with the PyTorch backend. Without ``DGLBACKEND`` set, DGL 1.1 looks for
``~/.dgl/config.json``, warns that no backend was chosen and writes that file; the GNN is
PyTorch, so say so before DGL is first imported (a user's own setting wins)."""
import os

os.environ.setdefault("DGLBACKEND", "pytorch")

import dgl  # noqa: E402
import dgl.function as fn  # noqa: E402

__all__ = ["dgl", "fn"]
