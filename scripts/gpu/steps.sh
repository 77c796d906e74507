# Shared by the GPU batch scripts (sourced): the results folder under "$OUT", a summary with
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
declare -A RC
run_step() {  # NAME MAX_SECONDS MIN_SECONDS CMD...
  local name=$1 max=$2 min=$3; shift 3
  local budget; budget=$(left)
  if (( budget < min )); then note "SKIP $name: ${budget}s left"; RC[$name]=skipped; return 0; fi
  (( budget > max )) && budget=$max
  note "RUN  $name (timeout ${budget}s): $*"
  timeout --signal=TERM --kill-after=10 "$budget" "$@" > "$LOGS/$name.log" 2>&1
  RC[$name]=$?
  note "DONE $name rc=${RC[$name]}"
}

# Configures and builds parascope-bench (cmake --preset gpu); on failure tars results into TAR and exits.
build_bench() {  # TAR
  BIN=build/gpu/kernels/parascope-bench
  run_step configure 120 30 cmake --preset gpu
  run_step build 300 60 cmake --build build/gpu --target parascope-bench -j "$(nproc)"
  if [[ ! -x $BIN ]]; then
    note "BUILD FAILED"; tail -40 "$LOGS/build.log" | tee -a "$SUMMARY"
    tar -czf "$1" -C "$OUT" results; exit 1
  fi
}
