#!/usr/bin/env bash
# Issue 21 item 3 on the lent 1 x H200: the compiled stand-in (trace/collector/python/parascope_world/
# standin_backend.cpp, chosen by compiled.py). In one run:
#   1. builds it against this machine's torch (timed; the c10d headers' virtuals are kept for a failed build);
#   2. check_standin.py's cases with the compiled backend and with the Python group (the same expected lists);
#   3. standin_call_cost.py for both, beside the real NCCL call;
#   4. standin_overhead_inproc.sh for both (IMPLS="compiled python", REPEATS each);
#   5. record --world 8 of the small GPT with the collector, each implementation, then info and whatif.
# Usage (repo root, GPU machine): OUT=/path BIN=folder-with-parascope-cli-and-libparascope_cupti.so \
#        scripts/gpu/standin_compiled.sh        (BIN: cmake --preset gpu; --target parascope-cli parascope_cupti)
# Back: $OUT/standin_compiled.txt (the summary) and $OUT/standin_compiled.tar.gz (every log and JSON).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-standin-compiled}
BIN=${BIN:-$ROOT/build/gpu/app/cli}
REPEATS=${REPEATS:-2}
STEPS=${STEPS:-build checks cost overhead record}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-compiled.XXXXXX)
export PARASCOPE_CACHE_DIR=$W/cache PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
S=$W/standin_compiled.txt
say() { echo "$*" | tee -a "$S"; }
finish() { cp "$S" "$OUT/"; tar -C "$W" --exclude=cache -czf "$OUT/standin_compiled.tar.gz" .; }
trap finish EXIT
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit ${PARASCOPE_COMMIT:-unknown}"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())"
  command -v ninja g++ nvcc; } > "$W/env.txt" 2>&1
cat "$W/env.txt" >> "$S"

if has build; then
  t=$SECONDS
  env PARASCOPE_WORLD_BACKEND=compiled PARASCOPE_WORLD_BUILD_VERBOSE=1 python3 -c "
import sys; sys.path.insert(0, 'trace/collector/python')
from parascope_world import compiled
m, why = compiled.load(); print('loaded:', why, m.__file__)" > "$W/build.log" 2>&1
  rc=$?
  say "build: exit $rc in $((SECONDS - t)) s: $(tail -n 1 "$W/build.log")"
  if [ $rc != 0 ]; then
    inc=$(python3 -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'include'))")
    grep -n "virtual\|finish\|class TORCH_API" "$inc"/torch/csrc/distributed/c10d/{Backend,Work}.hpp > "$W/c10d_virtuals.txt" 2>&1
    grep -n "error" "$W/build.log" | head -30 | tee -a "$S"
    say "the build failed: nothing else is run"; exit 1
  fi
fi

if has checks; then
  for impl in compiled python; do
    for case in ddp tp a2a funcol fsdp leak; do
      timeout 300 python3 tests/collector/standin/check_standin.py "$case" --impl "$impl" > "$W/check_${case}_$impl.log" 2>&1
      say "check $case $impl: exit $? $(tail -n 1 "$W/check_${case}_$impl.log")"
    done
  done
fi

if has cost; then
  for impl in compiled python; do
    env RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29700 + ${#impl})) timeout 200 taskset -c 0-7 \
      python3 scripts/gpu/standin_call_cost.py --impl "$impl" > "$W/cost_$impl.txt" 2>&1
    say "cost $impl: exit $?"; cat "$W/cost_$impl.txt" >> "$S"
  done
fi

if has overhead; then
  OUT=$W/overhead REPEATS=$REPEATS IMPLS="compiled python" scripts/gpu/standin_overhead_inproc.sh > "$W/overhead.log" 2>&1
  say "overhead: exit $?"; cat "$W/overhead/overhead_inproc.txt" >> "$S" 2>/dev/null
fi

if has record; then
  export PARASCOPE_PYTHON_DIR=$ROOT/trace/collector/python
  for impl in compiled python; do
    rec=$W/rec/gpt_n8_$impl
    env PARASCOPE_WORLD_BACKEND=$impl timeout 200 taskset -c 0-7 "$BIN/parascope-cli" record --world 8 --rank 0 -o "$rec" -- \
      python3 scripts/gpu/onegpu_gpt.py --steps 6 --warmup 3 --out "$W/gpt_n8_$impl.json" > "$W/record_$impl.log" 2>&1
    say "record gpt n8 $impl: exit $? $(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print({k: v for k, v in d.items() if not isinstance(v, (list, dict))})" "$W/gpt_n8_$impl.json" 2>&1 | head -c 400)"
    "$BIN/parascope-cli" info "$rec" > "$W/info_$impl.txt" 2>&1
    grep -i -m5 "stand-in\|collective\|warning" "$W/info_$impl.txt" | tee -a "$S"
    "$BIN/parascope-cli" whatif "$rec" --topology hgx_h200x8 > "$W/whatif_$impl.txt" 2>&1
    say "whatif $impl: exit $?"; grep -i -m8 "step time\|exposed\|groups\|repeat" "$W/whatif_$impl.txt" | tee -a "$S"
  done
fi
say "done $(date -u)"
