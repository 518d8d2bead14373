#!/usr/bin/env bash
# Import TLCBench's float32 per-layer Ansor logs (crazydemo/TLCBench at bde82a1,
# tmp_logs_layers/autoscheduler/platinum-8358/: MLP1, MLP2, MHA1-4 at batch 32-512 tuned on an
# Intel Xeon Platinum 8358, Ice Lake) into data/imported/tlcbench-platinum-8358/, each log with
# its task file and import report. REPO is a git directory of that repository (the search
# tool's fetch gives one); the raw logs go to data/raw/tlcbench/ (ignored by git). Resumable: a
# log already imported is skipped.
#   bash benchmarks/import_tlcbench.sh /work/.mirror/crazydemo+TLCBench/repo
set -euo pipefail
PY=${PY:-.venv/bin/python}
REPO=${1:?usage: import_tlcbench.sh GIT_DIR_OF_crazydemo/TLCBench}
COMMIT=bde82a188cd4c912b77ba27637aa8314cfa37cf4
SRC=tmp_logs_layers/autoscheduler/platinum-8358
OUT=${OUT:-data/imported/tlcbench-platinum-8358}
RAW=data/raw/tlcbench
mkdir -p "$RAW" "$OUT"
for path in $(git --git-dir "$REPO" ls-tree -r --name-only "$COMMIT" "$SRC" | grep float32); do
  name=$(basename "$path")
  if ! git --git-dir "$REPO" cat-file -e "$COMMIT:$path" 2>/dev/null; then
    echo "$name: not in this copy of the repository (files over 4 MiB may be left out)"
    continue
  fi
  [ -s "$RAW/$name" ] || git --git-dir "$REPO" show "$COMMIT:$path" > "$RAW/$name"
  net=$($PY -c "from tvm_gnn_cost.workloads.corpus.tlcbench import entry_point; print(entry_point('$name'))")
  $PY -m tvm_gnn_cost import "$RAW/$name" --network "$net" --out "$OUT"
done
