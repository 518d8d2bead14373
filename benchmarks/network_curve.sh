#!/usr/bin/env bash
# How accuracy on new networks grows with the number of training networks (issue 21): for each
# size N and seed S, N of data/train's logs drawn with seed S, a checkpoint made from them
# exactly as the shipped one is (adopt_check.sh, seed S), scored on the validation and test
# networks; every run scores the same tasks (those no data/train log holds). The full set is
# the recipe's own rows (adopt_check.sh ens "" 0 1 2).
#   OUT=runs/netcurve bash benchmarks/network_curve.sh "10 20" 0 1 2
set -euo pipefail
PY=${PY:-.venv/bin/python}
export OUT=${OUT:-/tmp/network-curve}
sizes=$1
shift
mkdir -p "$OUT"
for n in $sizes; do
  for s in "$@"; do
    dir=$OUT/train-n$n-s$s
    rm -rf "$dir"
    mkdir -p "$dir"
    $PY - "$n" "$s" "$dir" <<'PY'
import glob, os, random, sys
n, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
logs = sorted(p for p in glob.glob("data/train/*.json.gz") if not p.endswith(".tasks.json.gz"))
for log in sorted(random.Random(seed).sample(logs, n)):
    for path in (log, log[:-len(".json.gz")] + ".tasks.json.gz"):
        os.symlink(os.path.abspath(path), os.path.join(out, os.path.basename(path)))
    print(os.path.basename(log)[:-len(".json.gz")], end=" ")
print()
PY
    TRAIN="$dir/*.json.gz" LEAVE_OUT="data/train/*.json.gz" \
      bash benchmarks/adopt_check.sh "n$n" "" "$s"
  done
done
