#!/usr/bin/env bash
# Issue 54's benchmark: the default MetaSchedule model against MetaSchedule's own XGBoost (as
# tune_tasks builds it), on apache-tvm 0.27, through compare --searcher metaschedule: each run
# tuned, built from its database, checked against torch, every build timed in turns with torch.
# Networks are corpus entry points (tvm_gnn_cost.workloads.corpus): the test networks cnn,
# mobilenetv3_block, gpt_block (reported only) or the validation ones regnet_nchw,
# gpt_decoder_512 (for choices such as the prior's screen). SEEDS seeds each, TRIALS_PER_TASK
# trials a task (default 64), MODELS (default gnn,xgb), TRIALS_PER_ITER candidates an iteration
# (default 16, the same for every model); writes runs/ms-NET[-TAG] and copies its figures to
# benchmarks/results/metaschedule/NET[-TAG]. A finished run is reused.
#   SEEDS=3 bash benchmarks/bench_ms_networks.sh cnn mobilenetv3_block gpt_block
#   SEEDS=1 TRIALS_PER_TASK=16 MODELS=gnn,gnn-prior,xgb TAG=prior-screen \
#       bash benchmarks/bench_ms_networks.sh gpt_decoder_512
set -euo pipefail
PY=${PY:-.venv-modern/bin/python}
SEEDS=${SEEDS:-3}
PER_TASK=${TRIALS_PER_TASK:-64}
MODELS=${MODELS:-gnn,xgb}
PER_ITER=${TRIALS_PER_ITER:-16}
for net in "$@"; do
  case $net in
    cnn|mobilenetv3_block|regnet_nchw) spec=tvm_gnn_cost.workloads.corpus.cnn:$net ;;
    gpt_block|gpt_decoder_512) spec=tvm_gnn_cost.workloads.corpus.transformer:$net ;;
    *) echo "unknown network $net" >&2; exit 2 ;;
  esac
  tasks=$($PY -c "
from tvm_gnn_cost.metaschedule.tuning import ms_workload_from_model
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores
print(len(ms_workload_from_model('$spec', with_num_cores(host_target())).modules))" 2>/dev/null | tail -1)
  name=$net${TAG:+-$TAG}
  out=runs/ms-$name
  $PY -m tvm_gnn_cost compare --searcher metaschedule --network "$spec" --models "$MODELS" \
    --trials $((tasks * PER_TASK)) --trials-per-iter "$PER_ITER" --seeds "$SEEDS" --out "$out"
  mkdir -p "benchmarks/results/metaschedule/$name"
  cp "$out"/{curves.csv,curves.json,compare.json,curves.png,summary.md} \
    "benchmarks/results/metaschedule/$name/"
done
