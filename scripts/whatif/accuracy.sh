#!/bin/bash
# Reproduces the what-if tables of docs/accuracy.md: replay of every real 2 x H200 trace against its
# measurement, the prediction pairs against the no-profiler step times, and the interference check.
# The ctest test_whatif ("whatif accuracy: ...", tests/whatif/accuracy_test.cpp) checks the same
# replay and pairs through the library, each error pinned to the docs' value within 1 point.
# usage: scripts/whatif/accuracy.sh [path/to/parascope-cli]   (from the repository root)
set -euo pipefail
CLI=${1:-build/dev/app/cli/parascope-cli}
C=resources/captures/h200x2_2026-11-30
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() { "$CLI" whatif "$@" -t h200x2 --json; }
median() {  # no-profiler median step time (us) of a variant
  python3 - "$1" "$C" <<'PY'
import json, sys
v, c = sys.argv[1], sys.argv[2]
for f in ("tp_steps_rank0.json", "tp_steps_nch4_rank0.json", "dp_steps_rank0.json"):
    for r in json.load(open(f"{c}/{f}"))["rows"]:
        if r["variant"] == v:
            print(r["median_ns"] / 1e3)
PY
}
echo "### Replay of the unchanged graph"
echo
echo "| trace | measured step | replay (a-priori) | error | GPU measured | GPU replay (a-priori) | error | comm beside compute (a-priori) | fitted: GPU replay calibrated on the trace | error | fitted comm beside compute | no-profiler median |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for v in tp_serial_b1 tp_overlap_b1 tp_serial_b4 tp_overlap_b4 tp_serial_b1_nch4 tp_overlap_b1_nch4 tp_serial_b4_nch4 \
         tp_overlap_b4_nch4 dp_step sample; do
  if [ "$v" = sample ]; then in=resources/samples/allreduce_matmul_2xh200; m=""; else in=$C/$v; m=$(median "${v/dp_step/dp_ddp}"); fi
  run "$in" > "$TMP/a.json"
  run "$in" --set comm_slowdown=-1 > "$TMP/f.json"
  python3 - "$TMP/a.json" "$TMP/f.json" <<PY
import json, sys
s = json.load(open(sys.argv[1]))['replay']
f = json.load(open(sys.argv[2]))['prediction']  # --set comm_slowdown=-1
e = lambda a, b: '%+.1f %%' % ((a / b - 1) * 100)
m = '$m'
print('| %s | %.1f us | %.1f us | %s | %.1f us | %.1f us | %s | x%.2f | %.1f us | %s | x%.2f | %s |' % ('$v', s['measured_step_ns'] / 1e3,
      s['step_ns'] / 1e3, e(s['step_ns'], s['measured_step_ns']), s['measured_gpu_step_ns'] / 1e3, s['gpu_step_ns'] / 1e3,
      e(s['gpu_step_ns'], s['measured_gpu_step_ns']), 1 + s['comm_slowdown'], f['gpu_step_ns'] / 1e3,
      e(f['gpu_step_ns'], f['measured_gpu_step_ns']), 1 + f['comm_slowdown'], ('%.1f us' % float(m)) if m else '-'))
PY
done
echo
echo "### Predictions (GPU step time) against the second run's no-profiler median"
echo
echo "| from | to | --set | replay of 'from' | predicted | measured 'to' | error |"
echo "|---|---|---|---:|---:|---:|---:|"
pair() {
  local from=$1 to=$2; shift 2
  local set="$*"
  local args=()
  for kv in $set; do args+=(--set "$kv"); done
  run "$C/$from" "${args[@]}" | python3 -c "
import json, sys
d = json.load(sys.stdin)
p, r, m = d['prediction']['gpu_step_ns'] / 1e3, d['replay']['gpu_step_ns'] / 1e3, float('$(median "$to")')
print('| %s | %s | \`%s\` | %.1f us | %.1f us | %.1f us | %+.1f %% |' % ('$from', '$to', '$set', r, p, m, (p / m - 1) * 100))"
}
pair tp_serial_b1 tp_overlap_b1 comm_select=allreduce comm_stream=side
pair tp_overlap_b1 tp_serial_b1 comm_select=allreduce comm_stream=serial
pair tp_serial_b1 tp_serial_b4 comm_select=allreduce comm_split=4
pair tp_overlap_b1 tp_overlap_b4 comm_select=allreduce comm_split=4
pair tp_serial_b4 tp_serial_b1 comm_select=allreduce comm_merge=4
pair tp_serial_b1 tp_serial_b1_nch4 channels=4
pair tp_overlap_b1 tp_overlap_b1_nch4 channels=4
pair tp_serial_b4 tp_serial_b4_nch4 channels=4
pair tp_overlap_b4 tp_overlap_b4_nch4 channels=4
pair tp_serial_b1_nch4 tp_overlap_b1_nch4 comm_select=allreduce comm_stream=side
pair tp_overlap_b1_nch4 tp_serial_b1_nch4 comm_select=allreduce comm_stream=serial
pair tp_overlap_b1_nch4 tp_overlap_b4_nch4 comm_select=allreduce comm_split=4
pair tp_overlap_b4_nch4 tp_overlap_b1_nch4 comm_select=allreduce comm_merge=4
echo
echo "### Interference: 4 GEMMs and an all-reduce, serial trace -> concurrent prediction"
echo
echo "| all-reduce | measured serial | replay of the serial trace | predicted concurrent | measured concurrent | error |"
echo "|---:|---:|---:|---:|---:|---:|"
for sz in 16777216 67108864 268435456; do
  meas=$(python3 scripts/whatif/interference_trace.py $C/interference.json $sz "$TMP/i$sz")
  r=$("$CLI" whatif "$TMP/i$sz" -t h200x2 --json --set comm_select=allreduce --set comm_stream=side)
  python3 -c "
import json
m = json.loads('$meas'); d = json.loads('''$r''')
r, p = d['replay']['gpu_step_ns'], d['prediction']['gpu_step_ns']
print('| %d MiB | %.0f us | %.0f us | %.0f us | %.0f us | %+.1f %% |' % ($sz >> 20, m['serial_ns'] / 1e3, r / 1e3, p / 1e3,
      m['concurrent_ns'] / 1e3, (p / m['concurrent_ns'] - 1) * 100))"
done
