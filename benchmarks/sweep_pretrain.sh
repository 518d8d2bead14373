#!/usr/bin/env bash
# Pretraining settings compared on the validation split and the held-out networks, a few seeds
# each: NAME "PRETRAIN ARGS" SEED... prints, per seed, the best epoch, the epochs run, the
# validation pairwise accuracy, then the held-out pairwise / top-1 / top-5 / recall@5 / RMSE /
# MAPE (`evaluate --baseline none`). TRAIN: the training logs (default: all of data/train).
#   bash benchmarks/sweep_pretrain.sh pt32 "--per-task 32" 0 1 2
set -euo pipefail
PY=${PY:-.venv/bin/python}
TRAIN=${TRAIN:-data/train/*.json.gz}
OUT=${OUT:-/tmp/sweep-pretrain}
export TOPHUB_LOCATION=NONE
name=$1 args=$2
shift 2
mkdir -p "$OUT"
for s in "$@"; do
  ckpt=$OUT/$name-s$s.pt
  # shellcheck disable=SC2086 # TRAIN and args are word lists
  val=$($PY -m tvm_gnn_cost pretrain $TRAIN --out "$ckpt" --cache "$OUT/cache-$name-$s" \
    --seed "$s" $args 2>/dev/null \
    | sed -n 's/.*best epoch \([0-9]*\) of \([0-9]*\), validation pairwise accuracy \([0-9.]*\).*/\1 \2 \3/p')
  # shellcheck disable=SC2086
  held=$($PY -m tvm_gnn_cost evaluate --model "$ckpt" --baseline none --train $TRAIN \
    -- data/heldout/*.json.gz 2>/dev/null \
    | sed -n 's/^| \*\*gnn\*\* | all [0-9]* | [0-9]* | \(.*\) |$/\1/p')
  echo "$name seed $s | best epoch, epochs, val pairwise: $val | held out: $held"
  rm -rf "$OUT/cache-$name-$s"
done
