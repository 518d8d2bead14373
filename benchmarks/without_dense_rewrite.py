"""``tvm-gnn-cost tune`` with Ansor's layout rewrite turned off for ``dense`` tasks too, the way
every build ran before issue 51 made ``dense`` rewritable (``workloads/layout.py``). Everything
else is ``tune`` as a user runs it (the broadcast ``batch_matmul``s still become ``dense``s), so
a run of this and a run of ``tune`` with the same arguments tune the same tasks, with and without
the rewrite; time their exported libraries in turns with ``process_turns.py``::

    .venv/bin/python benchmarks/without_dense_rewrite.py --network NET --trials-per-task 64 \\
        --seed 0 --log runs/x/norewrite-s0.json --export runs/x/norewrite-s0.so
"""
from __future__ import annotations

import re
import sys

from tvm_gnn_cost.cli import main
from tvm_gnn_cost.workloads import layout

if __name__ == "__main__":
    layout.NO_REWRITE_OPS = re.compile(r"nn_(batch_matmul|matmul|dense)")
    sys.exit(main(["tune", *sys.argv[1:]]))
