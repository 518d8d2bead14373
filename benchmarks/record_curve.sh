#!/usr/bin/env bash
# The learning curve in records (issue 52): the recipe trained on data/train plus the first K
# imported records of each imported task (benchmarks/subsample_logs.py), for each K, one
# checkpoint a seed made exactly as the shipped one (adopt_check.sh), scored on the validation
# and test networks and their deciding slices as benchmarks/imported_check.sh scores them.
# K=0 and all records are imported_check.sh's own rows.
#   OUT=runs/imported bash benchmarks/record_curve.sh "64 256" 0
set -euo pipefail
PY=${PY:-.venv/bin/python}
export OUT=${OUT:-runs/imported}
ks=$1
shift
mkdir -p "$OUT"
# shellcheck source=benchmarks/slices.sh
source benchmarks/slices.sh
for k in $ks; do
  sub=$OUT/imported-k$k
  mkdir -p "$sub"
  $PY benchmarks/subsample_logs.py "$k" "$sub" data/imported/*/*[0-9]-float32.json.gz
  for s in "$@"; do
    TRAIN="data/train/*.json.gz $sub/*.json.gz" LEAVE_OUT="data/train/*.json.gz" \
      bash benchmarks/adopt_check.sh "k$k" "" "$s"
    slices "$OUT/k$k-s$s.pt" "$OUT/k$k-s$s"
  done
done
