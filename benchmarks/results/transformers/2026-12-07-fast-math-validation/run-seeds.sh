# Issue 51: validation of --fast-math as default (rule in benchmarks/results/transformers.md).
# gpt-512 seed 0 was run by runs/fm-screen/run.sh (copied here as gpt-512-*-s0.*).
set -e
D=runs/fm-val
tune() { # net spec seed flag
  tag=${4:+fast}; tag=${tag:-plain}
  [ -f $D/$1-$tag-s$3.so ] || .venv/bin/python -m tvm_gnn_cost tune --network $2 --trials-per-task 64 --seed $3 \
    --log $D/$1-$tag-s$3.json --export $D/$1-$tag-s$3.so $4 > $D/$1-$tag-s$3.txt 2>&1
}
for s in 1 2; do
  tune gpt-512 tvm_gnn_cost.workloads.corpus.transformer:gpt_decoder_512 $s ""
  tune gpt-512 tvm_gnn_cost.workloads.corpus.transformer:gpt_decoder_512 $s --fast-math
done
for s in 0 1 2; do
  tune bert bert $s ""
  tune bert bert $s --fast-math
done
for net in gpt-512 bert; do
PYTHONPATH=benchmarks .venv/bin/python -c "
from process_turns import time_in_processes as t
libs = {f'{m}-s{s}': ['tvm', f'$D/$net-{m}-s{s}.so'] for m in ('plain', 'fast') for s in range(3)}
print(t(libs, rounds=30))" > $D/$net-timed.txt 2>&1
done
echo done
