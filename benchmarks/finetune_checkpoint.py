"""A copy of a pretrained checkpoint that fine-tunes differently when it tunes (``tune
--pretrained``, ``compare --models gnn-pretrained --pretrained``): from how many records, at
what rate, and how strongly held near its weights (``TrainerConfig.anchor``, L2-SP). The
weights are the checkpoint's; only the online training settings saved with them change.

    .venv/bin/python benchmarks/finetune_checkpoint.py --after 16 --lr 2e-3 --anchor 0.1 \\
        --out runs/anchor/gnn-anchor0.1.pt
"""
from __future__ import annotations

import argparse
from dataclasses import replace

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=SHIPPED_CHECKPOINT)
    ap.add_argument("--after", type=int, required=True,
                    help="fine-tune once the job has this many measured records")
    ap.add_argument("--lr", type=float, required=True, help="fine-tuning learning rate")
    ap.add_argument("--anchor", type=float, default=0.0,
                    help="pull towards the checkpoint's weights (0: plain fine-tuning)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    model = GNNCostModel()
    model.load(args.checkpoint)
    model.trainer.configure(replace(model.trainer.config, num_warmup_sample=args.after,
                                    lr=args.lr, anchor=args.anchor))
    model.save(args.out)
    print(f"wrote {args.out}: {args.checkpoint} fine-tuned from {args.after} records at lr "
          f"{args.lr:g}, anchor {args.anchor:g}")


if __name__ == "__main__":
    main()
