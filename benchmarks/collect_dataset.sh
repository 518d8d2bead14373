#!/usr/bin/env bash
# Collect the shipped dataset: random sketch-space programs of every task of six networks,
# measured on this machine. Held-out networks (squeezenet, bert) go to data/heldout/ and are
# never trained on. Resumable: rerun after an interruption and it continues.
set -euo pipefail
PER_TASK=${PER_TASK:-24}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-data/raw}
mkdir -p "$OUT/train" "$OUT/heldout"
for net in squeezenet bert; do
  TOPHUB_LOCATION=NONE $PY -m tvm_gnn_cost collect --network $net --programs-per-task $PER_TASK \
    --out "$OUT/heldout/$net.json"
done
for net in dcgan resnet-18 resnet-50 inception-v3; do
  TOPHUB_LOCATION=NONE $PY -m tvm_gnn_cost collect --network $net --programs-per-task $PER_TASK \
    --out "$OUT/train/$net.json"
done
