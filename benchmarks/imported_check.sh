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
transformers_validation="data/validation/bert.json.gz data/validation/gpt-512.json.gz"
transformers_test="data/test/gpt-block.json.gz data/test/speech-encoder.json.gz"
slices() {  # CKPT BASE: pair kinds on validation, test, and their transformer networks
  # shellcheck disable=SC2086 # globs
  $PY benchmarks/pair_kinds.py "$1" data/validation/*.json.gz --train data/train/*.json.gz \
    --json "$2.pairs-validation.json" > "$2.pairs-validation.md"
  $PY benchmarks/pair_kinds.py "$1" data/test/*.json.gz --train data/train/*.json.gz \
    --json "$2.pairs-test.json" > "$2.pairs-test.md"
  $PY benchmarks/pair_kinds.py "$1" $transformers_validation --train data/train/*.json.gz \
    --json "$2.pairs-transformers-validation.json" > "$2.pairs-transformers-validation.md"
  $PY benchmarks/pair_kinds.py "$1" $transformers_test --train data/train/*.json.gz \
    --json "$2.pairs-transformers-test.json" > "$2.pairs-transformers-test.md"
}
for s in "$@"; do
  LEAVE_OUT="data/train/*.json.gz" bash benchmarks/adopt_check.sh recipe "" "$s"
  slices "$OUT/recipe-s$s.pt" "$OUT/recipe-s$s"
  TRAIN="data/train/*.json.gz $IMPORTED" LEAVE_OUT="data/train/*.json.gz" \
    bash benchmarks/adopt_check.sh imported "" "$s"
  slices "$OUT/imported-s$s.pt" "$OUT/imported-s$s"
done
