# Shell helpers shared by the compare-based benchmarks (source it; bash).

# unseen_tasks NET [LAYOUT]: how many tasks the test network NET of benchmarks/models/unseen.py
# has on this host (LAYOUT: the desired layout, NHWC by default as in tune; "none" as brought).
unseen_tasks() {
  local layout=${2:-NHWC}
  [ "$layout" = none ] && layout=None || layout="'$layout'"
  PYTHONPATH=benchmarks/models${PYTHONPATH:+:$PYTHONPATH} $PY -c "
from tvm_gnn_cost.workloads.networks import load_workload
from tvm_gnn_cost.workloads.targets import host_target
print(len(load_workload('unseen:$1', host_target(), layout=$layout).tasks))" 2>/dev/null | tail -1
}

# keep_run OUT RES: copy a compare run's figures from OUT into the results folder RES and its
# Ansor logs, gzipped, into RES/logs/ (what profile_build.py and later analyses read), with
# each log's .start (when its tuning began: the tuning time of a curve rebuilt from the log).
keep_run() {
  mkdir -p "$2/logs"
  cp "$1"/{curves.csv,curves.json,compare.json,curves.png,summary.md} "$2/"
  local log
  for log in "$1"/logs/*.json; do
    case $log in *.tasks.json) continue ;; esac
    gzip -9c "$log" > "$2/logs/$(basename "$log").gz"
    [ ! -f "$log.start" ] || cp "$log.start" "$2/logs/"
  done
}
