#!/usr/bin/env bash
# Issue "tune and compare", pretrained: the GNN pretrained on other networks only (no program
# of any resnet-18 task: resnet-50's seven shared tasks and the softmax are left out of its
# logs) tunes resnet-18 against online XGBModel, same settings as the online comparison
# (benchmarks/results/r18-round8). Writes benchmarks/results/r18-transfer/.
# MODELS=gnn-prior,xgb NAME=r18-prior: the same checkpoint as a frozen prior beside an online
# GNN (PRIOR_RECORDS, default 128) instead of fine-tuned.
set -euo pipefail
PY=${PY:-.venv/bin/python}
NAME=${NAME:-r18-transfer}
MODELS=${MODELS:-gnn-pretrained,xgb}
RUN=runs/$NAME
OUT=benchmarks/results/$NAME
SEEDS=${SEEDS:-3}
mkdir -p "$RUN" "$OUT"
export TOPHUB_LOCATION=NONE
LOGS=$(ls data/train/*.json.gz data/validation/*.json.gz | grep -v resnet-18)
$PY benchmarks/without_network.py "$RUN/data" data/train/resnet-18.tasks.json.gz $LOGS \
  | tee "$OUT/pretrain.txt"
# The shipped checkpoint's recipe: a validation run picks the epochs, then train on all.
$PY -m tvm_gnn_cost pretrain "$RUN"/data/*.json.gz --out "$RUN/gnn-val.pt" --workers 2 \
  --results "$RUN/gnn-val.json" | tee -a "$OUT/pretrain.txt"
EPOCHS=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["best_epoch"])' \
  "$RUN/gnn-val.json")
$PY -m tvm_gnn_cost pretrain "$RUN"/data/*.json.gz --out "$RUN/gnn-no-r18.pt" --workers 2 \
  --val-fraction 0 --epochs "$EPOCHS" | tee -a "$OUT/pretrain.txt"
$PY -m tvm_gnn_cost compare --network resnet-18 --models "$MODELS" \
  --pretrained "$RUN/gnn-no-r18.pt" --prior-records "${PRIOR_RECORDS:-128}" --trials 480 \
  --seeds "$SEEDS" --measures-per-round 8 --out "$RUN"
cp "$RUN"/{curves.csv,curves.json,compare.json,curves.png,summary.md} "$OUT/"
