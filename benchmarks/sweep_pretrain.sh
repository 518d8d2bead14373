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
  $PY -m tvm_gnn_cost pretrain $TRAIN --out "$ckpt" --results "$OUT/$name-s$s.json" \
    --cache "$OUT/cache-$name-$s" --seed "$s" $args > /dev/null 2>&1
  # shellcheck disable=SC2086
  $PY -m tvm_gnn_cost evaluate --model "$ckpt" --baseline none --train $TRAIN \
    --json "$OUT/$name-s$s.eval.json" -- data/validation/*.json.gz > /dev/null 2>&1
  $PY - "$name" "$s" "$OUT/$name-s$s.json" "$OUT/$name-s$s.eval.json" <<'PY'
import json, sys
name, seed, train, held = sys.argv[1:]
t = json.load(open(train))
g = json.load(open(held))["gnn"]["all"]
metrics = " | ".join(f"{g[k]:.3f}" for k in ("pairwise", "top1", "top5", "recall@5", "rmse", "mape"))
print(f"{name} seed {seed} | best epoch, epochs, val pairwise: {t['best_epoch']} {t['epochs']} "
      f"{t['best_val_accuracy']:.3f} | held out: {metrics}")
PY
  rm -rf "$OUT/cache-$name-$s"
done
