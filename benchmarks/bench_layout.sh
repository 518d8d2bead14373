#!/usr/bin/env bash
# Does converting a PyTorch CNN to NHWC (tune's default on CPUs, as tvmc's --desired-layout)
# help? Tunes a test network as brought (NCHW, which Relay's x86 alter-layout turns into
# conv2d_NCHWc tasks) with the models, seeds and trials a task of bench_default.sh, whose runs
# of the same network are the NHWC side; the verdict is each layout's built latency.
# Writes benchmarks/results/layout/NET-nchw/, with the Ansor logs gzipped under logs/.
#   SEEDS=3 TRIALS_PER_TASK=40 bash benchmarks/bench_layout.sh cnn
set -euo pipefail
PY=${PY:-.venv/bin/python}
SEEDS=${SEEDS:-3}
PER_TASK=${TRIALS_PER_TASK:-40}
MODELS=${MODELS:-gnn,xgb}
export PYTHONPATH=benchmarks/models${PYTHONPATH:+:$PYTHONPATH}
source "$(dirname "$0")/common.sh"
for net in "$@"; do
  tasks=$(unseen_tasks "$net" none)
  out=runs/layout-$net-nchw
  $PY -m tvm_gnn_cost compare --network "unseen:$net" --desired-layout none \
    --models "$MODELS" --trials $((tasks * PER_TASK)) --seeds "$SEEDS" --out "$out"
  keep_run "$out" "benchmarks/results/layout/$net-nchw"
done
