#!/usr/bin/env bash
# RPC tracker and server on 127.0.0.1, then tune the same matmul through it and locally.
set -euo pipefail
PY=.venv/bin/python
export TOPHUB_LOCATION=NONE
$PY -m tvm.exec.rpc_tracker --host 127.0.0.1 --port 9190 > runs/rpc/tracker.log 2>&1 &
T=$!
sleep 3
$PY -m tvm.exec.rpc_server --host 127.0.0.1 --port 9090 --tracker 127.0.0.1:9190 --key local > runs/rpc/server.log 2>&1 &
S=$!
sleep 5
trap 'kill $S $T' EXIT
for s in 0 1; do
  for mode in local rpc; do
    extra=""; [ $mode = rpc ] && extra="--rpc-key local --rpc-host 127.0.0.1 --rpc-port 9190"
    start=$(date +%s.%N)
    $PY -m tvm_gnn_cost tune --network matmul --input-shape 256,256,256 --model gnn --trials 64 \
      --seed $s --log runs/rpc/$mode-s$s.json --no-build $extra > runs/rpc/$mode-s$s.out 2>&1
    end=$(date +%s.%N)
    echo "$mode seed $s: $(echo "$end - $start" | bc) s, $(tail -1 runs/rpc/$mode-s$s.out)"
  done
done
