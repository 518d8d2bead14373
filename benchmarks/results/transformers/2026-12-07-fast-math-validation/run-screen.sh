set -e
N=tvm_gnn_cost.workloads.corpus.transformer:gpt_decoder_512
for flag in "" "--fast-math"; do
  tag=${flag:+fast}; tag=${tag:-plain}
  .venv/bin/python -m tvm_gnn_cost tune --network $N --trials-per-task 64 --seed 0 --log runs/fm-screen/$tag-s0.json --export runs/fm-screen/$tag-s0.so $flag > runs/fm-screen/$tag-s0.txt 2>&1
done
PYTHONPATH=benchmarks .venv/bin/python -c "
from process_turns import time_in_processes as t
print(t({'plain':['tvm','runs/fm-screen/plain-s0.so'],'fast':['tvm','runs/fm-screen/fast-s0.so']}, rounds=30))" > runs/fm-screen/timed.txt 2>&1
