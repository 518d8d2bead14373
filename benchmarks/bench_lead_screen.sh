#!/usr/bin/env bash
# Issue 53's screens on validation networks (corpus names: gpt-512, squeezenet, ...): the
# default model (gnn), stock Ansor (xgb) and a candidate, TRIALS_PER_TASK trials a task
# (default 100), SEEDS seeds, no builds: the rule in benchmarks/results/lead-at-100.md decides
# on the final estimates and the time to reach stock Ansor's final. The candidate is
# gnn-pretrained from a checkpoint: ANCHOR=A makes it (benchmarks/finetune_checkpoint.py: the
# shipped checkpoint fine-tuned from 16 records at lr 2e-3, held near its weights with anchor
# A) in runs/anchor/gnn-anchorA.pt; CHECKPOINT=PATH names another. MODELS overrides the models.
#   ANCHOR=0.1 SEEDS=3 bash benchmarks/bench_lead_screen.sh gpt-512 squeezenet
#
# A run takes about 25 minutes here, so the screen spans sessions: it tunes one seed of every
# model at a time and then keeps the logs in benchmarks/results/lead-at-100/NET-TAG/logs
# (TAG: anchorA, or TAG=...), from where a later session's start puts them back: finished runs
# are reused, the others resume from their logs, the pause left out of their tuning time. To
# stop in the middle of a run, kill the screen, then run it again with KEEP=1 (same networks,
# ANCHOR or TAG), which keeps the logs of the runs under way and tunes nothing.
set -euo pipefail
PY=${PY:-.venv/bin/python}
SEEDS=${SEEDS:-3}
PER_TASK=${TRIALS_PER_TASK:-100}
MODELS=${MODELS:-gnn,gnn-pretrained,xgb}
source "$(dirname "$0")/common.sh"
if [ -n "${ANCHOR:-}" ]; then
  CHECKPOINT=${CHECKPOINT:-runs/anchor/gnn-anchor$ANCHOR.pt}
  TAG=${TAG:-anchor$ANCHOR}
  [ -e "$CHECKPOINT" ] || $PY benchmarks/finetune_checkpoint.py --after 16 --lr 2e-3 \
    --anchor "$ANCHOR" --out "$CHECKPOINT"
fi
TAG=${TAG:?give ANCHOR=A, or TAG=NAME with CHECKPOINT=PATH or MODELS}
for net in "$@"; do
  out=runs/lead-$net-$TAG
  results=benchmarks/results/lead-at-100/$net-$TAG
  if [ "${KEEP:-0}" = 1 ]; then  # after a kill: keep what there is, tune nothing
    keep_logs "$out" "$results"
    continue
  fi
  restore_logs "$results" "$out"
  read -r tasks args < <($PY -c "
from tvm_gnn_cost.workloads.corpus import by_name
from tvm_gnn_cost.workloads.networks import load_workload
from tvm_gnn_cost.workloads.targets import host_target
net = by_name()['$net']
tasks = load_workload(net.network, host_target(), input_shape=net.input_shape,
                      layout=None if net.layout == 'none' else net.layout).tasks
print(len(tasks), ' '.join(net.collect_args()))" 2>/dev/null | tail -1)
  [ -n "${tasks:-}" ] || { echo "cannot load the corpus network $net" >&2; exit 2; }
  for ((seeds = 1; seeds <= SEEDS; seeds++)); do  # a seed of every model, then kept
    # shellcheck disable=SC2086  # args: the corpus network's own flags
    $PY -m tvm_gnn_cost compare $args --models "$MODELS" ${CHECKPOINT:+--pretrained $CHECKPOINT} \
      --trials $((tasks * PER_TASK)) --seeds "$seeds" --no-build --out "$out"
    keep_run "$out" "$results"
  done
done
