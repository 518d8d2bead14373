#!/usr/bin/env bash
# Build and time a bench_default.sh result's runs again, from its gzipped logs, all builds timed
# in turns (compare's timing since 2026-12-06): the built-latency verdict without the host's
# drift between one build's timing and the next. Writes RES/build-turns.md.
#   bash benchmarks/rebuild_turns.sh benchmarks/results/default/mobilenetv3_block-ansor-search
# The network is read from RES/summary.md's title, the trials from its table. On another host
# than the one that tuned, the schedules are those tuned there, timed here (say so).
set -euo pipefail
PY=${PY:-.venv/bin/python}
export PYTHONPATH=benchmarks/models${PYTHONPATH:+:$PYTHONPATH}
res=${1:?usage: rebuild_turns.sh RESULT_FOLDER}
net=$(head -1 "$res/summary.md" | sed -E 's/^# ([^ ]+) on .*/\1/')
trials=$(awk -F, 'NR > 1 && $3 > max {max = $3} END {print max}' "$res/curves.csv")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=()
for model in gnn xgb gnn-online; do
  for seed in 0 1 2 3 4; do
    gz="$res/logs/$model-seed$seed.json.gz"
    [ -f "$gz" ] || continue
    gunzip -c "$gz" > "$tmp/$model-seed$seed.json"
    [ ! -f "$res/logs/$model-seed$seed.json.start" ] || cp "$res/logs/$model-seed$seed.json.start" "$tmp/"
    logs+=("$model=$tmp/$model-seed$seed.json")
  done
done
$PY -m tvm_gnn_cost compare --network "$net" --trials "$trials" --seeds 0 \
  --measures-per-round 16 --logs "${logs[@]}" --out "$tmp/out" | tee "$tmp/stdout"
{
  echo "# $net: each run's build timed in turns ($(date -u '+%F %H:%M'), $($PY -c 'from tvm_gnn_cost.workloads.targets import host_target; print(host_target())'))"
  echo
  echo "Command: \`bash benchmarks/rebuild_turns.sh $res\`: builds from the logs in \`logs/\`,"
  echo "each checked against the original, then all timed in 10 rounds of 3 repeats (at least"
  echo "100 ms each), starting one build later each round. Built latency (ms):"
  echo
  $PY - "$tmp/out/curves.json" <<'PY'
import json, sys
import numpy as np
runs = json.load(open(sys.argv[1]))
print("| model | median | each seed |\n|---|---:|---|")
medians = {}
for model in dict.fromkeys(c["model"] for c in runs):
    ms = [c["measured"] * 1e3 if c["measured"] else None for c in runs if c["model"] == model]
    ok = [m for m in ms if m is not None]
    medians[model] = float(np.median(ok)) if ok else None
    each = ", ".join(f"{m:.3f}" if m is not None else "failed" for m in ms)
    print(f"| {model} | {medians[model]:.3f} | {each} |" if ok else f"| {model} | - | {each} |")
if medians.get("gnn") and medians.get("xgb"):
    print(f"\ngnn / xgb built latency, medians: {medians['gnn'] / medians['xgb']:.3f}")
PY
  grep -h "runs the original model" "$tmp/out/summary.md" | sed 's/^/\n/' || true
} > "$res/build-turns.md"
cat "$res/build-turns.md"
