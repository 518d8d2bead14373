#!/usr/bin/env bash
# Collect the shipped dataset: random sketch-space programs of every task of eight networks,
# measured on this machine. Validation networks (squeezenet, bert) go to data/validation/ and are
# never trained on. Resumable: rerun after an interruption and it continues (and raising a
# count measures only the programs missing).
set -euo pipefail
TRAIN_PER_TASK=${TRAIN_PER_TASK:-48}
VALIDATION_PER_TASK=${VALIDATION_PER_TASK:-24}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-data/raw}
mkdir -p "$OUT/train" "$OUT/validation"
for net in squeezenet bert; do
  TOPHUB_LOCATION=NONE $PY -m tvm_gnn_cost collect --network $net \
    --programs-per-task "$VALIDATION_PER_TASK" --out "$OUT/validation/$net.json"
done
for net in bert-tiny bert-medium dcgan resnet-18 resnet-50 inception-v3; do
  TOPHUB_LOCATION=NONE $PY -m tvm_gnn_cost collect --network $net \
    --programs-per-task "$TRAIN_PER_TASK" --out "$OUT/train/$net.json"
done
