#!/usr/bin/env bash
# Issue 52's measurement: the shipped recipe trained without and with the imported logs
# (data/imported/), 3 seeds each, checkpoints made exactly as the shipped one
# (benchmarks/adopt_check.sh), scored on the validation and test networks, overall and on the
# slices that decide searches (benchmarks/pair_kinds.py: heavy tasks, pairs that differ only in
# tiling, near-best pairs; the transformer networks' tasks). Writes OUT/NAME-sSEED.*.
#   OUT=runs/imported bash benchmarks/imported_check.sh 0 1 2
set -euo pipefail
PY=${PY:-.venv/bin/python}
export OUT=${OUT:-runs/imported}
mkdir -p "$OUT"
IMPORTED="data/imported/*/*.json.gz"
# shellcheck source=benchmarks/slices.sh
source benchmarks/slices.sh
for s in "$@"; do
  LEAVE_OUT="data/train/*.json.gz" bash benchmarks/adopt_check.sh recipe "" "$s"
  slices "$OUT/recipe-s$s.pt" "$OUT/recipe-s$s"
  TRAIN="data/train/*.json.gz $IMPORTED" LEAVE_OUT="data/train/*.json.gz" \
    bash benchmarks/adopt_check.sh imported "" "$s"
  slices "$OUT/imported-s$s.pt" "$OUT/imported-s$s"
done
