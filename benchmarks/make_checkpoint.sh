#!/usr/bin/env bash
# The shipped checkpoint's recipe, in one place: pretrain on data/train with 20% of the
# training tasks held out to find the best epoch count (early stopping), then on all the
# training tasks for that many epochs. The two runs' results go to RESULTS-validation.json
# and RESULTS.json. TRAIN (a glob, default data/train) trains on other logs.
#   bash benchmarks/make_checkpoint.sh CKPT RESULTS SEED [PRETRAIN ARGS...]
#   bash benchmarks/make_checkpoint.sh tvm_gnn_cost/checkpoints/gnn-cpu.pt \
#     benchmarks/results/pretrain/pretrain 0          # the shipped checkpoint
#   TRAIN="data/train/*.json.gz data/deep/*.json.gz" \
#     bash benchmarks/make_checkpoint.sh CKPT RESULTS SEED   # with the deeper logs too
set -euo pipefail
PY=${PY:-.venv/bin/python}
ckpt=$1 results=$2 seed=$3
shift 3
TRAIN=${TRAIN:-data/train/*.json.gz}
export TOPHUB_LOCATION=NONE
val=$(mktemp --suffix .pt)
trap 'rm -f "$val"' EXIT
# shellcheck disable=SC2086 # TRAIN is a glob
$PY -m tvm_gnn_cost pretrain $TRAIN --out "$val" --workers 2 --seed "$seed" \
  --results "$results-validation.json" "$@"
epochs=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["best_epoch"])' \
  "$results-validation.json")
# shellcheck disable=SC2086
$PY -m tvm_gnn_cost pretrain $TRAIN --out "$ckpt" --workers 2 --seed "$seed" \
  --val-fraction 0 --epochs "$epochs" --results "$results.json" "$@"
