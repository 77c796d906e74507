# Shared by the GPU batch scripts (kernels.sh, sim_batch2.sh, sim_batch3.sh, nccl_tuning_probe.sh; sourced): the results folder under "$OUT", a summary with
# timestamps, and run_step, which runs one command with a timeout cut to the time left before
# DEADLINE seconds, logs it to results/logs/NAME.log and records its exit code in RC[NAME].
# The caller sets START (date +%s) and DEADLINE before sourcing. NVLink multicast stays off.
OUT=${OUT:-$PWD/out}
RES="$OUT/results"
LOGS="$RES/logs"
mkdir -p "$RES" "$LOGS"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

note() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$SUMMARY"; }
left() { echo $(( DEADLINE - ($(date +%s) - START) )); }
# run_step NAME MAX_SECONDS MIN_SECONDS CMD...: runs CMD with a timeout of min(MAX, time left),
# logs to logs/NAME.log, records the exit code; skipped when fewer than MIN seconds are left.
declare -A RC
run_step() {
  local name=$1 max=$2 min=$3; shift 3
  local budget; budget=$(left)
  if (( budget < min )); then note "SKIP $name: ${budget}s left, needs ${min}s"; RC[$name]=skipped; return 0; fi
  (( budget > max )) && budget=$max
  note "RUN  $name (timeout ${budget}s): $*"
  local t0=$(date +%s)
  timeout --signal=TERM --kill-after=10 "$budget" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  RC[$name]=$rc
  note "DONE $name rc=$rc in $(( $(date +%s) - t0 ))s$( ((rc == 124)) && echo ' (TIMED OUT: partial results kept)')"
  return 0
}

# Configures and builds parascope-bench (cmake --preset gpu); on failure tars results into TAR and exits.
build_bench() {  # TAR
  BIN=build/gpu/kernels/parascope-bench
  run_step configure 120 30 cmake --preset gpu
  run_step build 300 60 cmake --build build/gpu --target parascope-bench -j "$(nproc)"
  if [[ ! -x $BIN ]]; then
    note "BUILD FAILED"; tail -n 40 "$LOGS/build.log" | tee -a "$SUMMARY"
    tar -czf "$1" -C "$OUT" results; exit 1
  fi
}
