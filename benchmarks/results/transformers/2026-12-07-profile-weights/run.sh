# Issue 51: trials weighed by the build profile, on the validation network gpt-512.
# Each seed: 32 trials a task with --profile (built, profiled), then the same log resumed to
# 64 a task twice: with --weigh-by-profile and without; the six libraries timed in turns.
set -e
while pgrep -f "runs/(fm-val|layout-ab)/run.sh" > /dev/null; do sleep 20; done
D=runs/profile-ab
N=tvm_gnn_cost.workloads.corpus.transformer:gpt_decoder_512
T=".venv/bin/python -m tvm_gnn_cost tune --network $N"
for s in 0 1 2; do
  [ -f $D/half-s$s.json.profile.json ] || $T --trials-per-task 32 --seed $s --log $D/half-s$s.json --profile > $D/half-s$s.txt 2>&1
  for arm in weighed plain; do
    if [ ! -f $D/$arm-s$s.so ]; then
      rm -f $D/$arm-s$s.json; cp $D/half-s$s.json $D/$arm-s$s.json; cp $D/half-s$s.tasks.json $D/$arm-s$s.tasks.json
      extra=""; [ $arm = weighed ] && extra="--weigh-by-profile $D/half-s$s.json.profile.json"
      $T --trials-per-task 64 --seed $s --resume --log $D/$arm-s$s.json --export $D/$arm-s$s.so $extra > $D/$arm-s$s.txt 2>&1
    fi
  done
done
PYTHONPATH=benchmarks .venv/bin/python -c "
from process_turns import time_in_processes as t
libs = {f'{a}-s{s}': ['tvm', f'$D/{a}-s{s}.so'] for a in ('weighed', 'plain') for s in range(3)}
print(t(libs, rounds=30))" > $D/timed.txt 2>&1
echo done
