#!/usr/bin/env bash
# Issue 4 figures: pretrain on the shipped training networks, evaluate on the held-out ones
# (GNN against XGBModel trained on the same logs), then tune a held-out network with the
# pretrained GNN against online XGBModel. Writes benchmarks/results/pretrain/.
set -euo pipefail
PY=${PY:-.venv/bin/python}
OUT=benchmarks/results/pretrain
SEEDS=${SEEDS:-1}
mkdir -p "$OUT"
export TOPHUB_LOCATION=NONE
# 1. The shipped checkpoint (tvm_gnn_cost/checkpoints/gnn-cpu.pt is made by exactly this
# command: early stopping on 20% of the training tasks, then all of them for the best epoch).
bash benchmarks/make_checkpoint.sh tvm_gnn_cost/checkpoints/gnn-cpu.pt "$OUT/pretrain" 0 \
  | tee "$OUT/pretrain.txt"
# 2. Accuracy on the held-out networks, all together and one by one.
$PY -m tvm_gnn_cost evaluate --model tvm_gnn_cost/checkpoints/gnn-cpu.pt --baseline xgb --train data/train/*.json.gz \
  --out "$OUT/heldout.md" --json "$OUT/heldout.json" -- data/validation/*.json.gz > /dev/null
for net in squeezenet bert; do
  $PY -m tvm_gnn_cost evaluate --model tvm_gnn_cost/checkpoints/gnn-cpu.pt --baseline xgb \
    --train data/train/*.json.gz --out "$OUT/heldout-$net.md" --json "$OUT/heldout-$net.json" \
    -- data/validation/$net.json.gz > /dev/null
done
# 3. Search on a held-out network: pretrained GNN (fine-tuning online) against online XGBModel.
$PY -m tvm_gnn_cost compare --network squeezenet --models gnn-pretrained,xgb \
  --pretrained tvm_gnn_cost/checkpoints/gnn-cpu.pt --trials 500 --seeds "$SEEDS" --measures-per-round 4 \
  --out runs/squeezenet-pretrained
cp runs/squeezenet-pretrained/{curves.csv,curves.json,compare.json,curves.png,summary.md} "$OUT/"
