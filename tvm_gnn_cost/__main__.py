"""``python -m tvm_gnn_cost``: the same as the ``tvm-gnn-cost`` command."""
import sys

from .cli import main

sys.exit(main())
