#!/usr/bin/env bash
# More training data, collected on a later host than the shipped dataset (see data/README.md):
# the training networks at other input sizes and mobilenet, random sketch-space programs
# measured for this host's target (so they are tasks of their own, labels normalized within
# each). Held-out networks are never collected here. Resumable, as collect_dataset.sh.
set -euo pipefail
PER_TASK=${PER_TASK:-48}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-data/raw/extra}
SEED=${SEED:-1000}
mkdir -p "$OUT"
run() {  # name network [input shape]
  local name=$1 net=$2
  shift 2
  TOPHUB_LOCATION=NONE $PY -m tvm_gnn_cost collect --network "$net" "$@" --seed "$SEED" \
    --programs-per-task "$PER_TASK" --out "$OUT/$name.json"
}
run mobilenet mobilenet
run resnet-18-160 resnet-18 --input-shape 160,160,3
run bert-tiny-128 bert-tiny --input-shape 128
run bert-medium-128 bert-medium --input-shape 128
run resnet-50-160 resnet-50 --input-shape 160,160,3
