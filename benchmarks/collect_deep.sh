#!/usr/bin/env bash
# Deeper training data: 128 random sketch-space programs a task (the shipped logs hold 48) of
# resnet-18 and resnet-50, measured for this host's target (tasks of their own, labels
# normalized within each). Held-out networks are never collected here. Resumable, as
# collect_dataset.sh. About 80 minutes on this machine; gzip the logs and task files into
# data/deep/ (`gzip -9 -n`).
set -euo pipefail
PER_TASK=${PER_TASK:-128}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-data/raw/deep}
SEED=${SEED:-2000}
mkdir -p "$OUT"
for net in resnet-18 resnet-50; do
  TOPHUB_LOCATION=NONE $PY -m tvm_gnn_cost collect --network "$net" --seed "$SEED" \
    --programs-per-task "$PER_TASK" --out "$OUT/$net.json" --no-build
done
