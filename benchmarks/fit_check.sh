#!/usr/bin/env bash
# Why does the GNN underfit its own training tasks (issue 21)? Pretrain on all of data/train
# (no task held out, fixed epochs) with one setting, then score the training tasks of two of
# its logs (the fit: resnet-18 and mobilenet, as the first diagnosis) and the validation
# networks (what transfers). NAME "PRETRAIN ARGS" SEED... prints one line per seed.
#   bash benchmarks/fit_check.sh shipped "--epochs 26" 0
#   bash benchmarks/fit_check.sh noreg "--epochs 26 --dropout 0 --weight-decay 0" 0
# HOLD="" trains as the recipe does instead: early stopping on 20% of the training tasks
# (the representation experiments: HOLD="" bash benchmarks/fit_check.sh attention
# "--readout attention" 0 1 2).
set -euo pipefail
PY=${PY:-.venv/bin/python}
OUT=${OUT:-/tmp/fit-check}
HOLD=${HOLD---val-fraction 0}
FIT="data/train/resnet-18.json.gz data/train/mobilenet.json.gz"
export TOPHUB_LOCATION=NONE
name=$1 args=$2
shift 2
mkdir -p "$OUT"
for s in "$@"; do
  ckpt=$OUT/$name-s$s.pt
  start=$(date +%s)
  # shellcheck disable=SC2086 # args is a word list
  $PY -m tvm_gnn_cost pretrain data/train/*.json.gz --out "$ckpt" $HOLD --seed "$s" \
    --workers 2 $args > /dev/null 2>&1
  took=$(( $(date +%s) - start ))
  # shellcheck disable=SC2086
  $PY -m tvm_gnn_cost evaluate --model "$ckpt" --baseline none --include-seen \
    --json "$OUT/$name-s$s.fit.json" -- $FIT > /dev/null 2>&1
  $PY -m tvm_gnn_cost evaluate --model "$ckpt" --baseline none --train data/train/*.json.gz \
    --json "$OUT/$name-s$s.val.json" -- data/validation/*.json.gz > /dev/null 2>&1
  $PY - "$name" "$s" "$took" "$OUT/$name-s$s" <<'PY'
import json, sys
name, seed, took, base = sys.argv[1:]
fit = json.load(open(base + ".fit.json"))["gnn"]["all"]
val = json.load(open(base + ".val.json"))["gnn"]["all"]
f = " / ".join(f"{fit[k]:.3f}" for k in ("pairwise", "top1", "top5"))
v = " / ".join(f"{val[k]:.3f}" for k in ("pairwise", "top1", "top5"))
print(f"| {name} | {seed} | {f} | {v} | {took} s |", flush=True)
PY
done
