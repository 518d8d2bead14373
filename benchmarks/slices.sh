# The slices that decide searches, for one checkpoint (sourced by imported_check.sh and
# record_curve.sh): benchmarks/pair_kinds.py on the validation and test networks and on their
# transformer networks, written to BASE.pairs-{validation,test,transformers-*}.{json,md}.
transformers_validation="data/validation/bert.json.gz data/validation/gpt-512.json.gz"
transformers_test="data/test/gpt-block.json.gz data/test/speech-encoder.json.gz"
slices() {  # CKPT BASE
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
