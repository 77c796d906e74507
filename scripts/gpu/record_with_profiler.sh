#!/usr/bin/env bash
# `parascope-cli record` around a program that runs torch.profiler itself (docs/collector.md,
# "Beside the program's own profiler"), on a GPU machine with 1 or 2 GPUs, in one batch of < 8 min:
#   1. build (gpu preset): parascope-cli, the collector and the CUPTI guard
#   2. ParallelKernelBench's run_local.py --profile alone: GPU events in its own torch.profiler trace
#   3. the same under `record`: GPU events in its own trace, kernels in the collector's, what the
#      guard saw (record's summary, manifest.json: other_cupti_clients, cupti_guard)
#   4. the same under `record --no-cupti-guard` (control: nothing noticed, same counts otherwise)
#   5. a small torch.profiler program with CPU activities only, under `record`: does Kineto call
#      CUPTI at all then (the guard's notes), and do the collector's kernels arrive
#   6. `parascope-cli info` on step 3's record directory and the program's trace together
# Usage (repo root, on the GPU machine): OUT=/path scripts/gpu/record_with_profiler.sh PKB_DIR [GPUS]
#   PKB_DIR: a ParallelKernelBench checkout (../shared/external/ParallelKernelBench, copied over:
#   this machine cannot see ../shared); GPUS: processes of the PKB run (default: GPUs here, at most 2).
# Writes $OUT (4 files, < 2 MB): summary.txt (printed last), env.txt, logs.tar.gz, traces.tar.gz.
# Expected: step 2 > 0 GPU events; step 3 shows the guard's lines (Kineto's cuptiSubscribe refused,
# CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) and its own trace with fewer GPU events than
# step 2 (0 was seen before the guard existed); step 6 opens both on one clock.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PKB=${1:?usage: OUT=DIR scripts/gpu/record_with_profiler.sh PKB_DIR [GPUS]}
PKB=$(cd "$PKB" && pwd) || exit 2
[ -f "$PKB/run_local.py" ] || { echo "$PKB has no run_local.py (not a ParallelKernelBench checkout)"; exit 2; }
GPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
[ "$GPUS" -gt 2 ] && GPUS=2
[ "$GPUS" -ge 1 ] || { echo "no GPU (nvidia-smi -L lists none)"; exit 1; }
OUT=${OUT:-$ROOT/out-record-profiler}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-recprof.XXXXXX)
LOGS=$W/logs
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
START=$(date +%s)
SUM=$OUT/summary.txt
: > "$SUM"
say() { echo "[$(( $(date +%s) - START )) s] $*" | tee -a "$SUM"; }
run() {  # run NAME TIMEOUT CMD...: output in logs/NAME.log
  local name=$1 limit=$2
  shift 2
  timeout --kill-after=10 "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  say "$name: exit $rc"
}
# GPU events (kernels, copies, memsets) and all events in the program's own Kineto traces under DIR
gpu_events() {
  python3 - "$1" <<'EOF'
import gzip, json, pathlib, sys
files = sorted(p for p in pathlib.Path(sys.argv[1]).rglob("rank_*.json*"))
for p in files:
    d = json.load(gzip.open(p) if p.suffix == ".gz" else open(p))
    ev = [e for e in d.get("traceEvents", []) if e.get("ph") == "X"]
    gpu = sum(1 for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    print(f"  {p.name}: {gpu} GPU events of {len(ev)} complete events")
if not files:
    print("  no rank_*.json trace written")
EOF
}
finish() {
  tar -C "$W" -czf "$OUT/logs.tar.gz" logs 2>/dev/null
  # the program's traces and step 3's and 5's record directories (step 4's only counted, in the summary)
  (cd "$W" && tar -czf "$OUT/traces.tar.gz" --exclude=logs --exclude=nonguard --exclude='*.pt' . 2>/dev/null)
  say "done; $OUT: $(ls "$OUT" | tr '\n' ' ') ($(du -sh "$OUT" | cut -f1))"
  cat "$SUM"
}
trap finish EXIT

{ date -u; hostname; nvidia-smi; nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'gpus', torch.cuda.device_count())"
  git -C "$ROOT" log -1 --oneline; git -C "$PKB" log -1 --oneline 2>/dev/null || echo "PKB: not a git checkout"
} > "$OUT/env.txt" 2>&1

# ------------------------------------------------------------------ 1. build
run configure 180 cmake --preset gpu
run build 400 cmake --build build/gpu -j "$(nproc)" --target parascope-cli parascope_cupti parascope_cupti_guard
CLI=$ROOT/build/gpu/app/cli/parascope-cli
[ -x "$CLI" ] && [ -f build/gpu/trace/collector/libparascope_cupti_guard.so ] || { say "BUILD FAILED"; tail -30 "$LOGS/build.log" >> "$SUM"; exit 1; }

pkb() {  # pkb LOGDIR: the command line of PKB's all-reduce reference, dry run, its own profiler on, traces kept
  echo "cd '$PKB' && python3 run_local.py --mode dryrun -p 1 -s reference --nproc-per-node $GPUS --profile --download --logs-dir '$1'"
}

# ------------------------------------------------------------------ 2. the program alone
run alone 240 bash -c "$(pkb "$W/alone")"
say "step 2, PKB --profile alone ($GPUS GPUs): its own trace"
gpu_events "$W/alone" | tee -a "$SUM"

# ------------------------------------------------------------------ 3. under record (guard preloaded)
run recorded 300 "$CLI" record -o "$W/guard/rec" -- bash -c "$(pkb "$W/guard")"
say "step 3, PKB --profile under record: its own trace"
gpu_events "$W/guard" | tee -a "$SUM"
say "step 3: record's summary (kernels per process, another CUPTI client)"
grep -E 'pstrace: rank|device [0-9]+|another CUPTI client|ran another CUPTI client' "$LOGS/recorded.log" | tee -a "$SUM"
python3 - "$W/guard/rec/manifest.json" <<'EOF' | tee -a "$SUM"
import json, sys
m = json.load(open(sys.argv[1]))
print("  manifest: cupti_guard", m.get("cupti_guard"), "| processes_with_other_cupti_client", m.get("processes_with_other_cupti_client"))
for f in m["files"]:
    print(f"  {f['path']}: kernels {f['kernels']}, status {f['status']}, other_cupti_clients:",
          [(c['function'], c['client'], c['result_name'], c['calls']) for c in f.get("other_cupti_clients", [])])
EOF

# ------------------------------------------------------------------ 4. control: no guard
run nonguard 300 "$CLI" record --no-cupti-guard -o "$W/nonguard/rec" -- bash -c "$(pkb "$W/nonguard")"
say "step 4, the same with --no-cupti-guard: its own trace, then what record noticed"
gpu_events "$W/nonguard" | tee -a "$SUM"
grep -c 'another CUPTI client' "$LOGS/nonguard.log" | sed 's/^/  lines about another CUPTI client: /' | tee -a "$SUM"

# ------------------------------------------------------------------ 5. torch.profiler, CPU activities only
cat > "$W/cpu_only.py" <<'EOF'
import sys, torch
from torch.profiler import profile, ProfilerActivity
x = torch.randn(2048, 2048, device="cuda")
with profile(activities=[ProfilerActivity.CPU]) as prof:
    for _ in range(20):
        y = x @ x
    torch.cuda.synchronize()
prof.export_chrome_trace(sys.argv[1])
print("cpu-only profile written")
EOF
run cpu_only 180 "$CLI" record -o "$W/cpu_only/rec" -- python3 "$W/cpu_only.py" "$W/cpu_only/rank_0.json"
say "step 5, torch.profiler with CPU activities only, under record"
gpu_events "$W/cpu_only" | tee -a "$SUM"
grep -E 'device [0-9]+|another CUPTI client' "$LOGS/cpu_only.log" | tee -a "$SUM"

# ------------------------------------------------------------------ 6. both views together
trace=$(find "$W/guard" -name 'rank_0.json*' | head -1)
if [ -n "$trace" ]; then
  run info_both 120 "$CLI" info "$W/guard/rec" "$trace"
  say "step 6, info on the record directory and the program's own trace together"
  grep -E '^(format|span|events|rank|torchrun|python)|clock offset|GPU [0-9]|kernels' "$LOGS/info_both.log" | head -40 | tee -a "$SUM"
else
  say "step 6: no program trace from step 3 to open"
fi
