#!/usr/bin/env bash
# Issue 6 search figures: MetaSchedule with the GNN against MetaSchedule's own XGBoost model,
# at equal trials, on matmul, conv2d and a small network (dcgan, 6 tasks), 3 seeds each.
# Budgets are well past MetaSchedule's XGBoost warm-up (it scores at random until it has 100
# measured records). Writes benchmarks/results/metaschedule/<workload>/ (curves, plot, summary).
# PY=.venv-modern/bin/python runs it on apache-tvm 0.27 instead of TVM 0.19.
set -euo pipefail
PY=${PY:-.venv/bin/python}
SEEDS=${SEEDS:-3}
MODELS=${MODELS:-gnn,xgb}
OUT=benchmarks/results/metaschedule
export TOPHUB_LOCATION=NONE
run() {  # workload, trials, extra args
  local net=$1 trials=$2
  shift 2
  $PY -m tvm_gnn_cost compare --searcher metaschedule --network "$net" --models "$MODELS" \
    --trials "$trials" --trials-per-iter 16 --seeds "$SEEDS" --out "runs/ms-$net" "$@"
  mkdir -p "$OUT/$net"
  cp "runs/ms-$net"/{curves.csv,curves.json,compare.json,curves.png,summary.md} "$OUT/$net/"
}
run matmul 160
run conv2d 160
run dcgan 192
