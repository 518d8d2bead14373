#!/usr/bin/env bash
# Issue 21's adoption check for a pretraining setting: make checkpoints exactly as the shipped
# one is made (benchmarks/make_checkpoint.sh) with ARGS, one per seed, then score the
# validation networks (data/validation: what choices are made on) and the test networks
# (data/test: reported, never chosen on). One table row per seed; metrics per task in
# OUT/NAME-sSEED.{validation,test}.json.
#   bash benchmarks/adopt_check.sh recipe "" 0 1 2
#   bash benchmarks/adopt_check.sh steps "--step-tokens 12" 0 1 2
#   XGB=1 bash benchmarks/adopt_check.sh ...   # also XGBModel trained on data/train (seed 0)
set -euo pipefail
PY=${PY:-.venv/bin/python}
OUT=${OUT:-/tmp/adopt-check}
export TOPHUB_LOCATION=NONE
name=$1 args=$2
shift 2
mkdir -p "$OUT"
row() {  # LABEL SEED SECONDS JSON-BASE MODEL-KEY
  $PY - "$@" <<'PY'
import json, sys
label, seed, took, base, key = sys.argv[1:]
cells = []
for split in ("validation", "test"):
    m = json.load(open(f"{base}.{split}.json"))[key]["all"]
    cells.append(" / ".join(f"{m[k]:.3f}" for k in ("pairwise", "top1", "top5")))
print(f"| {label} | {seed} | {cells[0]} | {cells[1]} | {took} |", flush=True)
PY
}
for s in "$@"; do
  base=$OUT/$name-s$s
  start=$(date +%s)
  # shellcheck disable=SC2086 # args is a word list
  bash benchmarks/make_checkpoint.sh "$base.pt" "$base" "$s" $args > "$base.log" 2>&1
  took=$(( $(date +%s) - start ))
  baseline=none
  if [ -n "${XGB:-}" ] && [ "$s" = "$1" ]; then baseline=xgb; fi
  for split in validation test; do
    $PY -m tvm_gnn_cost evaluate --model "$base.pt" --baseline $baseline \
      --train data/train/*.json.gz --json "$base.$split.json" -- data/$split/*.json.gz \
      >> "$base.log" 2>&1
  done
  row "$name" "$s" "$took s" "$base" gnn
  if [ $baseline = xgb ]; then row "XGBModel on data/train" 0 "" "$base" xgb; fi
done
