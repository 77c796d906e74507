#!/usr/bin/env bash
# Diagnoses the exit of a torchrun program recorded with NVLink PM sampling (the torch_nvl step of
# collector.sh left both ranks' files "unfinished" and torchrun exit 1). Runs the same workload
# without sampling (control), then 3 times with sampling (a crash prints the collector's fault
# backtrace); NVL_NOSIG=1 adds a run with PARASCOPE_SIGNALS=0, NVL_GDB=1 a run under gdb.
# History: before the fix in Collector::sampler_at_exit, 5 of 5 sampled runs died with SIGSEGV in
# libnvperf_host (cuptiProfilerHostEvaluateToGpuValues from the writer thread) at exit.
# Leaves under "$OUT": nvl_exit.txt (exit codes, stderr tails, manifest status, info) and
# build.log. Under 5 minutes on 2 x H200.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); cd "$ROOT"
OUT=${OUT:-$ROOT/out-nvl}; mkdir -p "$OUT"; LOG=$OUT/nvl_exit.txt; : > "$LOG"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=$(mktemp -d /tmp/nvl.XXXXXX)
say() { echo "== $*" | tee -a "$LOG"; }
{ cmake --preset gpu && cmake --build build/gpu -j 16 --target parascope-cli parascope_cupti; } > "$OUT/build.log" 2>&1 || { say "BUILD FAILED"; tail -30 "$OUT/build.log" >> "$LOG"; exit 1; }
CLI=build/gpu/app/cli/parascope-cli
TR="torchrun --standalone --nproc-per-node 2 scripts/gpu/collector_workload.py --iters 20"
case_run() {
  local name=$1; shift
  say "$name: $*"
  mkdir -p "$W/${name}_win"
  timeout --kill-after=10 150 env "$@" "$CLI" record -o "$W/$name" ${NVL:-} -- $TR --out "$W/${name}_win" > "$W/$name.log" 2>&1
  say "$name: exit $?"
  grep -v "^\s*$" "$W/$name.log" | grep -i -E "fault|segv|signal|error|traceback|exit|warn|File \"|parascope|\.so|\[0x" | grep -v "PM sampling counters on" | head -60 >> "$LOG"
  python3 - "$W/$name/manifest.json" >> "$LOG" 2>&1 <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print("manifest exit", m.get("exit"))
for f in m["files"]:
    print(" ", f["path"], f["status"], f.get("end_reason"), "complete", f["complete"], "records", f["records"], "warnings", f["warnings"])
PY
  "$CLI" info -q "$W/$name" 2>&1 | grep -E "rank|NVLink|warning|error" | head -12 >> "$LOG"
}
NVL= case_run control PARASCOPE_DUMMY=1
for k in 1 2 3; do NVL="--nvlink-sample-us 1000" case_run nvl$k PARASCOPE_DUMMY=1; done
[ -n "${NVL_NOSIG:-}" ] && NVL="--nvlink-sample-us 1000" case_run nvl_nosig PARASCOPE_SIGNALS=0
if [ -n "${NVL_GDB:-}" ] && command -v gdb > /dev/null; then
  say "gdb on rank processes (nvl, no collector signal handlers)"
  cat > "$W/gdbrun.sh" <<'G'
#!/usr/bin/env bash
exec gdb -q -batch -ex run -ex bt -ex "info threads" -ex "thread apply all bt 8" --args python3 "$@"
G
  chmod +x "$W/gdbrun.sh"
  PARASCOPE_SIGNALS=0 timeout --kill-after=10 150 "$CLI" record -o "$W/gdb" --nvlink-sample-us 1000 -- \
    torchrun --standalone --nproc-per-node 2 --no-python "$W/gdbrun.sh" scripts/gpu/collector_workload.py --iters 20 --out "$W/gdb_win" > "$W/gdb.log" 2>&1
  say "gdb run exit $?"
  grep -E "^#|signal|Thread .* hit|SIG" "$W/gdb.log" | head -80 >> "$LOG"
else
  say "no gdb on this machine"
fi
tar -C "$W" -czf "$OUT/logs.tar.gz" --exclude='*.pstrace' . 2>/dev/null
say done
