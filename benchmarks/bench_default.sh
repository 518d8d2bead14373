#!/usr/bin/env bash
# The default model (online GNN + shipped prior) against stock Ansor, and the online GNN alone,
# on test networks no training log holds (benchmarks/models/unseen.py), SEEDS seeds each, at
# least 40 trials a task (TRIALS_PER_TASK); writes benchmarks/results/default/NET/, the Ansor
# logs gzipped under its logs/ (what profile_build.py and later analyses read).
#   SEEDS=3 TRIALS_PER_TASK=40 bash benchmarks/bench_default.sh cnn mobilenetv3_block gpt_block
# MODELS picks the models (default gnn,xgb,gnn-online). A finished run is reused and an
# interrupted one resumes from its log, so the benchmark can be run in parts. A budget other than
# 40 trials a task gets its own folders (NET-100pt for 100); to extend the 40-trial runs instead
# of tuning from scratch, copy them first (cp -r runs/default-NET runs/default-NET-100pt): a
# resumed run goes on from its log as one killed and restarted does, the pause left out of its
# tuning time (compare --max-gap). TAG=NAME gives a run its own folders (NET-NAME), e.g. after
# the shipped checkpoint is remade:
#   TAG=ckpt-2026-12-04 MODELS=gnn,xgb bash benchmarks/bench_default.sh cnn
# MEASURES_PER_ROUND sets the programs measured a round for every model (16 by default); give the
# run a TAG of its own, e.g. TAG=r8 MEASURES_PER_ROUND=8. FIRST_ROUND=N passes --first-round N
# (programs in each task's first round) to every model of the run. SEARCH=default runs Ansor's
# own SketchPolicy size (population 2048, 4 iterations: what stock Ansor gives a user) instead
# of --search small; give the run a TAG of its own, e.g. TAG=ansor-search SEARCH=default.
set -euo pipefail
PY=${PY:-.venv/bin/python}
SEEDS=${SEEDS:-3}
PER_TASK=${TRIALS_PER_TASK:-40}
MODELS=${MODELS:-gnn,xgb,gnn-online}
ROUND=${MEASURES_PER_ROUND:-16}
FIRST=${FIRST_ROUND:+--first-round $FIRST_ROUND}
SEARCH=${SEARCH:-small}
export PYTHONPATH=benchmarks/models${PYTHONPATH:+:$PYTHONPATH}
source "$(dirname "$0")/common.sh"
for net in "$@"; do
  tasks=$(unseen_tasks "$net")
  name=$net
  [ "$PER_TASK" = 40 ] || name=$net-${PER_TASK}pt
  name=$name${TAG:+-$TAG}
  out=runs/default-$name
  $PY -m tvm_gnn_cost compare --network "unseen:$net" --models "$MODELS" \
    --trials $((tasks * PER_TASK)) --seeds "$SEEDS" --measures-per-round "$ROUND" --search "$SEARCH" $FIRST --out "$out"
  keep_run "$out" "benchmarks/results/default/$name"
done
