#!/usr/bin/env bash
# `parascope-cli record --op-shapes` on a real PyTorch program (issue 18 item 10: the roofline of the
# collector's own trace was empty), on a 1 x H200 machine, in one batch of < 6 min:
#   1. build (gpu preset: parascope-cli, the collector), unless OP_SHAPES_BIN holds them prebuilt
#   2. scripts/gpu/op_shapes_workload.py (bf16: 2 matmuls, a linear layer forward + backward, a
#      3x3 convolution forward + backward, scaled_dot_product_attention forward + backward, per
#      iteration) under `record --op-shapes`
#   3. `parascope-cli roofline` of it, the number of kernels with a FLOP count, the FLOPs the
#      roofline counted against what the workload says its ops do, and the trace's op-shapes note
#   4. the same program under plain `record` (control: no FLOP count) and the host time of 20 000
#      tiny ops in both runs: the cost of the NVTX op ranges per op (docs/collector.md says it is
#      unmeasured until this runs)
# Usage (repo root, on the GPU machine): OUT=/path scripts/gpu/op_shapes_check.sh
#   OP_SHAPES_BIN: a folder with parascope-cli and libparascope_cupti.so built by `cmake --preset gpu`
#   (default: build them into build/gpu here).
# Writes $OUT (< 5 MB): summary.txt (printed last), roofline.txt, roofline.json, info.txt, env.txt,
# logs.tar.gz, traces.tar.gz (both record directories).
# Works when: the roofline's note says most kernels have a FLOP count ("N of M kernels have a FLOP
# count", N > 0; the GEMM, convolution and attention kernels), "FLOPs from" reads
# "NVTX op shapes (aten::mm)" and the like, the counted total equals the expected total
# ("counted / expected = 1.000"), info's notes hold "op shapes: PyTorch's NVTX op ranges with input
# shapes on", and the control run has "0 of M kernels have a FLOP count".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU (nvidia-smi -L lists none)"; exit 1; }
OUT=${OUT:-$ROOT/out-op-shapes}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-opshapes.XXXXXX)
LOGS=$W/logs
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 PARASCOPE_RESOURCES=$ROOT/resources PARASCOPE_PYTHON_DIR=$ROOT/trace/collector/python
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
  return $rc
}
finish() {
  tar -C "$W" -czf "$OUT/logs.tar.gz" logs 2>/dev/null
  tar -C "$W" -czf "$OUT/traces.tar.gz" shapes plain 2>/dev/null
  say "done; $OUT: $(ls "$OUT" | tr '\n' ' ') ($(du -sh "$OUT" | cut -f1))"
  cat "$SUM"
}
trap finish EXIT

{ date -u; hostname; nvidia-smi; nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'gpus', torch.cuda.device_count())"
  git -C "$ROOT" log -1 --oneline
} > "$OUT/env.txt" 2>&1

# ------------------------------------------------------------------ 1. build
if [ -n "${OP_SHAPES_BIN:-}" ]; then
  BIN=$(cd "$OP_SHAPES_BIN" && pwd)
  CLI=$BIN/parascope-cli
  LIB=$BIN/libparascope_cupti.so
else
  run configure 180 cmake --preset gpu
  run build 400 cmake --build build/gpu -j "$(nproc)" --target parascope-cli parascope_cupti parascope_cupti_guard
  CLI=$ROOT/build/gpu/app/cli/parascope-cli
  LIB=$ROOT/build/gpu/trace/collector/libparascope_cupti.so
fi
if [ ! -x "$CLI" ] || [ ! -f "$LIB" ]; then
  say "BUILD FAILED (no $CLI or $LIB)"
  tail -30 "$LOGS/build.log" >> "$SUM" 2>/dev/null
  exit 1
fi

# ------------------------------------------------------------------ 2. under record --op-shapes
WORK=$ROOT/scripts/gpu/op_shapes_workload.py
run shapes 240 "$CLI" record --op-shapes --lib "$LIB" -o "$W/shapes" -- python3 "$WORK" --out "$W/expected_shapes.json"
grep -E 'op-shapes|op shapes' "$LOGS/shapes.log" | head -5 | tee -a "$SUM"

# ------------------------------------------------------------------ 3. the roofline of it
"$CLI" roofline "$W/shapes" -q --machine h200x2 --top 30 > "$OUT/roofline.txt" 2>&1
"$CLI" roofline "$W/shapes" -q --machine h200x2 --json > "$OUT/roofline.json" 2>&1
"$CLI" info "$W/shapes" -q > "$OUT/info.txt" 2>&1
say "step 3: parascope-cli roofline of the record --op-shapes run"
cat "$OUT/roofline.txt" >> "$SUM"
python3 - "$OUT/roofline.json" "$W/expected_shapes.json" <<'EOF' | tee -a "$SUM"
import json, sys
r = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
print(f"  kernels with a FLOP count: {r['kernels_with_flops']} of {r['kernels']} "
      f"(in op ranges without shapes: {r.get('kernels_in_op_ranges_without_shapes')})")
rows = r["roofline"]["rows"]
counted = sum(row["flops_flop"] or 0 for row in rows)
print(f"  FLOPs counted {counted:.6g}, expected {e['expected_flops_total']:.6g} over {e['iterations']} iterations "
      f"({', '.join(f'{k} {v:.4g}' for k, v in e['expected_flops_per_iteration'].items())} per iteration): "
      f"counted / expected = {counted / e['expected_flops_total']:.3f}")
for row in rows:
    if row["flops_flop"]:
        print(f"  {row['count']:4d} x {row['kernel'][:60]:60s} {row['flops_flop']:.4g} FLOP  {row['flops_from']}")
print("  without FLOPs, longest first:")
for row in [x for x in rows if not x["flops_flop"]][:8]:
    print(f"  {row['count']:4d} x {row['kernel'][:60]:60s} {row['time_ns'] / 1e3:10.1f} us  {row['flops_from']}")
EOF
say "step 3: the trace's notes about op shapes (info)"
grep -E "op shapes|op-shapes" "$OUT/info.txt" | tee -a "$SUM"

# ------------------------------------------------------------------ 4. control: plain record; the cost per op
run plain 240 "$CLI" record --lib "$LIB" -o "$W/plain" -- python3 "$WORK" --out "$W/expected_plain.json"
"$CLI" roofline "$W/plain" -q --machine h200x2 > "$LOGS/roofline_plain.txt" 2>&1
say "step 4: plain record (control)"
grep -oE '[0-9]+ of [0-9]+ kernels have a FLOP count' "$LOGS/roofline_plain.txt" | sed 's/^/  /' | tee -a "$SUM"
python3 - "$W/expected_plain.json" "$W/expected_shapes.json" <<'EOF' | tee -a "$SUM"
import json, sys
p, s = (json.load(open(f)) for f in sys.argv[1:3])
print(f"  torch {s['torch']} on {s['gpu']}")
print(f"  host time per tiny op ({s['tiny_ops']} x t.add_(1)): plain record {p['tiny_op_host_us']:.2f} us, "
      f"record --op-shapes {s['tiny_op_host_us']:.2f} us: +{s['tiny_op_host_us'] - p['tiny_op_host_us']:.2f} us per op "
      f"(one run each: noise not measured)")
print(f"  workload step: plain {p['step_ms']:.2f} ms, --op-shapes {s['step_ms']:.2f} ms")
EOF
