#!/usr/bin/env bash
# Issue 21's adoption check for a pretraining setting: make checkpoints exactly as the shipped
# one is made (benchmarks/make_checkpoint.sh) with ARGS, one per seed, then score the
# validation networks (data/validation: what choices are made on) and the test networks
# (data/test: reported, never chosen on). One table row per seed; metrics per task in
# OUT/NAME-sSEED.{validation,test}.json. TRAIN (a glob, default data/train) says what is
# trained on.
#   bash benchmarks/adopt_check.sh recipe "" 0 1 2
#   bash benchmarks/adopt_check.sh steps "--step-tokens 12" 0 1 2
#   TRAIN="data/train/*.json.gz data/deep/*.json.gz" bash benchmarks/adopt_check.sh deep "" 0 1 2
#   XGB=1 bash benchmarks/adopt_check.sh ...   # also XGBModel trained on TRAIN (seed 0)
# LEAVE_OUT (a glob, default TRAIN): the logs whose tasks are left out of the scores; a run
# trained on part of data/train sets it to data/train so that every run scores the same tasks.
set -euo pipefail
PY=${PY:-.venv/bin/python}
OUT=${OUT:-/tmp/adopt-check}
export TRAIN=${TRAIN:-data/train/*.json.gz}
LEAVE_OUT=${LEAVE_OUT:-$TRAIN}
export TOPHUB_LOCATION=NONE
splits="validation test"
name=$1 args=$2
shift 2
mkdir -p "$OUT"
row() {  # LABEL SEED SECONDS JSON-BASE MODEL-KEY SPLIT...
  $PY - "$@" <<'PY'
import json, sys
label, seed, took, base, key, *splits = sys.argv[1:]
cells = []
for split in splits:
    m = json.load(open(f"{base}.{split}.json"))[key]["all"]
    cells.append(" / ".join(f"{m[k]:.3f}" for k in ("pairwise", "top1", "top5")))
print(f"| {label} | {seed} | {' | '.join(cells)} | {took} |", flush=True)
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
  # XGBModel trains on TRAIN; tasks that LEAVE_OUT holds are not scored
  leave_out=$LEAVE_OUT
  [ $baseline = xgb ] && leave_out=$TRAIN
  for split in $splits; do
    # shellcheck disable=SC2086 # globs
    $PY -m tvm_gnn_cost evaluate --model "$base.pt" --baseline $baseline \
      --train $leave_out --json "$base.$split.json" -- data/$split/*.json.gz >> "$base.log" 2>&1
  done
  # shellcheck disable=SC2086
  row "$name" "$s" "$took s" "$base" gnn $splits
  # shellcheck disable=SC2086
  if [ $baseline = xgb ]; then row "XGBModel on TRAIN" 0 "" "$base" xgb $splits; fi
done
