#!/usr/bin/env bash
# Issue 54's benchmark: the default MetaSchedule model against MetaSchedule's own XGBoost (as
# tune_tasks builds it), on apache-tvm 0.27 (PY=.venv/bin/python: TVM 0.19's MetaSchedule,
# built through Relay), through compare --searcher metaschedule: each run tuned, built from its
# database, checked against torch, every build timed in turns with torch.
# Networks are corpus entry points (tvm_gnn_cost.workloads.corpus): the test networks cnn,
# mobilenetv3_block, gpt_block (reported only) or the validation ones regnet_nchw,
# gpt_decoder_512 (for choices such as the prior's screen). SEEDS seeds each, TRIALS_PER_TASK
# trials a task (default 64), MODELS (default gnn,xgb), TRIALS_PER_ITER candidates an iteration
# (default 16, the same for every model); writes runs/ms-NET[-TAG] and copies its figures to
# benchmarks/results/metaschedule/NET[-TAG].
#
# A run takes 20-45 minutes here, so the benchmark spans sessions: every finished run (its
# curve and gzipped database) is kept in benchmarks/results/metaschedule/NET[-TAG]/runs/ as
# soon as its seed is done, and put back into runs/ before tuning, where compare reuses it.
# The builds run once every seed is tuned (BUILD=0 tunes only). To stop in the middle of a
# run, kill the benchmark, then KEEP=1 with the same networks and TAG keeps the run under way
# as well (NAME.partial.*, dropped once the run is finished), which compare resumes from its
# database, its tuning time counted up to the kill. Each network's shared_programs.md
# (benchmarks/ms_shared_programs.py) gives the estimates with every program that several runs
# measured at one latency.
#   SEEDS=3 bash benchmarks/bench_ms_networks.sh cnn mobilenetv3_block gpt_block
#   SEEDS=3 TRIALS_PER_TASK=16 MODELS=gnn,gnn-online TAG=prior-screen \
#       bash benchmarks/bench_ms_networks.sh gpt_decoder_512
#   PY=.venv/bin/python TAG=tvm019 SEEDS=3 bash benchmarks/bench_ms_networks.sh cnn
set -euo pipefail
PY=${PY:-.venv-modern/bin/python}
SEEDS=${SEEDS:-3}
PER_TASK=${TRIALS_PER_TASK:-64}
MODELS=${MODELS:-gnn,xgb}
PER_ITER=${TRIALS_PER_ITER:-16}
BUILD=${BUILD:-1}
DB=(database_workload.json:workloads database_tuning_record.json:records)

# runs of runs/ms-NAME/metaschedule <-> benchmarks/results/metaschedule/NAME/runs: each its
# curve (RUN.json, RUN.partial.json while under way) and its database in RUN/
keep_runs() {
  local work=$1 kept=$2 curve run f
  mkdir -p "$kept"
  for curve in "$work"/*-seed*.json; do
    [[ -e $curve ]] || continue
    run=$(basename "$curve" .json)  # MODEL-seedN or MODEL-seedN.partial
    cp "$curve" "$kept/$run.json"
    for f in "${DB[@]}"; do
      gzip -c "$work/${run%.partial}/${f%%:*}" > "$kept/$run.${f##*:}.json.gz"
    done
    [[ $run == *.partial ]] || rm -f "$kept/$run.partial."*
  done
}

restore_runs() {
  local work=$1 kept=$2 curve run f
  for curve in "$kept"/*-seed*.json; do
    [[ -e $curve ]] || continue
    run=$(basename "$curve" .json)
    [[ -e $work/${run%.partial}.json || -e $work/$run.json ]] && continue
    mkdir -p "$work/${run%.partial}"
    for f in "${DB[@]}"; do
      gunzip -c "$kept/$run.${f##*:}.json.gz" > "$work/${run%.partial}/${f%%:*}"
    done
    cp "$curve" "$work/$run.json"
    echo "restored $run from $kept"
  done
}

for net in "$@"; do
  case $net in
    cnn|mobilenetv3_block|regnet_nchw) spec=tvm_gnn_cost.workloads.corpus.cnn:$net ;;
    gpt_block|gpt_decoder_512) spec=tvm_gnn_cost.workloads.corpus.transformer:$net ;;
    *) echo "unknown network $net" >&2; exit 2 ;;
  esac
  name=$net${TAG:+-$TAG}
  out=runs/ms-$name
  results=benchmarks/results/metaschedule/$name
  if [[ ${KEEP:-0} == 1 ]]; then  # after a kill: keep what there is, tune nothing
    keep_runs "$out/metaschedule" "$results/runs"
    continue
  fi
  restore_runs "$out/metaschedule" "$results/runs"
  tasks=$($PY -c "
from tvm_gnn_cost.metaschedule.tuning import ms_workload_from_model
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores
print(len(ms_workload_from_model('$spec', with_num_cores(host_target())).modules))" 2>/dev/null | tail -1)
  args=(--searcher metaschedule --network "$spec" --models "$MODELS"
        --trials $((tasks * PER_TASK)) --trials-per-iter "$PER_ITER" --out "$out")
  for ((seeds = 1; seeds <= SEEDS; seeds++)); do  # a seed of every model, then kept
    $PY -m tvm_gnn_cost compare "${args[@]}" --seeds "$seeds" --no-build
    keep_runs "$out/metaschedule" "$results/runs"
  done
  # the same table with each program several runs measured at one latency (a task of one
  # program is measured once a run: its noise is no model's doing)
  if $PY benchmarks/ms_shared_programs.py "$spec" "$out" > /dev/null; then
    cp "$out"/{shared_programs.md,pooled_curves.json} "$results/"
  else
    echo "ms_shared_programs.py failed on $out; the benchmark goes on" >&2
  fi
  [[ $BUILD == 1 ]] || continue
  $PY -m tvm_gnn_cost compare "${args[@]}" --seeds "$SEEDS"
  cp "$out"/{curves.csv,curves.json,compare.json,curves.png,summary.md} "$results/"
done
