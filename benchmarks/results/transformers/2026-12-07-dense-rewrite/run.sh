# Issue 51: gpt-512 tuned without the dense layout rewrite (the "with" side is runs/fm-val's
# plain seeds, tune's default), 64 trials a task, 3 seeds; then all six timed in turns.
set -e
while pgrep -f runs/fm-val/run.sh > /dev/null; do sleep 20; done
D=runs/layout-ab
N=tvm_gnn_cost.workloads.corpus.transformer:gpt_decoder_512
for s in 0 1 2; do
  [ -f $D/norewrite-s$s.so ] || .venv/bin/python benchmarks/without_dense_rewrite.py --network $N \
    --trials-per-task 64 --seed $s --log $D/norewrite-s$s.json --export $D/norewrite-s$s.so > $D/norewrite-s$s.txt 2>&1
done
PYTHONPATH=benchmarks .venv/bin/python -c "
from process_turns import time_in_processes as t
libs = {f'rewrite-s{s}': ['tvm', f'runs/fm-val/gpt-512-plain-s{s}.so'] for s in range(3)}
libs.update({f'norewrite-s{s}': ['tvm', f'$D/norewrite-s{s}.so'] for s in range(3)})
print(t(libs, rounds=30))" > $D/timed.txt 2>&1
echo done
