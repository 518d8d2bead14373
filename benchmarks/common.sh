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

# keep_logs OUT RES: a compare run's Ansor logs, finished or under way, gzipped from OUT/logs/
# into RES/logs/ (what profile_build.py and later analyses read), with each log's .start (when
# its tuning began: the tuning time of a curve rebuilt from the log).
keep_logs() {
  mkdir -p "$2/logs"
  local log
  for log in "$1"/logs/*.json; do
    case $log in *.tasks.json) continue ;; esac
    [ -e "$log" ] || continue
    gzip -9c "$log" > "$2/logs/$(basename "$log").gz"
    [ ! -f "$log.start" ] || cp "$log.start" "$2/logs/"
  done
}

# restore_logs RES OUT: put the logs keep_logs kept in RES/logs/ back into OUT/logs/ where OUT
# has none or a shorter one (a later session's fresh checkout), so that compare reuses the
# finished runs and resumes the others from their logs.
restore_logs() {
  mkdir -p "$2/logs"
  local kept log
  for kept in "$1"/logs/*.json.gz; do
    [ -e "$kept" ] || continue
    log=$2/logs/$(basename "$kept" .gz)
    if [ ! -e "$log" ] || [ "$(gunzip -c "$kept" | wc -l)" -gt "$(wc -l < "$log")" ]; then
      gunzip -c "$kept" > "$log"
      [ ! -f "${kept%.gz}.start" ] || cp "${kept%.gz}.start" "$log.start"
      echo "restored $log from $kept"
    fi
  done
}

# keep_run OUT RES: copy a compare run's figures from OUT into the results folder RES, and its
# logs (keep_logs).
keep_run() {
  mkdir -p "$2"
  cp "$1"/{curves.csv,curves.json,compare.json,curves.png,summary.md} "$2/"
  keep_logs "$1" "$2"
}
