#!/usr/bin/env bash
# ParallelKernelBench's references at world 1 under the collector, and PKB's eval of Parascope's
# solutions at world 1 (issue 22; docs/pkb.md). One call runs one problem range and stops starting
# tasks before its deadline; running the same NAME again resumes (the suite folder is kept under
# $ROOT/.pkb-suites/NAME on a warm machine, or seeded from a carried PKB_RESUME tarball).
# Usage (repo root, GPU machine):
#   scripts/gpu/pkb_world1.sh PKB_DIR RANGE NAME
#     PKB_DIR  the ParallelKernelBench checkout carried into the repo (e.g. .carry/ParallelKernelBench)
#     RANGE    problem numbers: 1-44, 45-87, 1,2,7-8
#     NAME     the suite's name: results in $OUT/NAME.tar.gz (the suite folder) and $OUT/NAME.txt
# Environment:
#   PKB_DEADLINE_S    seconds from the start by which the last task must end (default 500)
#   PKB_TASK_TIMEOUT_S  per task (default 40)
#   PKB_LAUNCHER      direct (default: worker.py as torchrun starts it) or run_local (PKB's launcher)
#   PKB_EVAL=1        first the tasks Parascope has solutions for (PKB_EVAL_PROBLEMS, default
#                     1,2,7,8,12,16), then RANGE keeping PKB_EVAL_RESERVE_S (default 150) for
#                     `pkb solutions` (predictions written before the eval) and PKB's eval of them
#                     (PKB_EVAL_TRIALS, default 1)
#   PKB_RESUME        a NAME.tar.gz of an earlier call, unpacked when the suite folder is missing
#   PKB_BIN           prebuilt parascope-cli, libparascope_cupti.so and libparascope_pkb_kernels.so
#                     (cmake --preset gpu elsewhere; default .carry/pkb-bin); else they are built here
# Files back (<= 8): NAME.tar.gz (or NAME.tar.gz.part-aa.. when over 15 MiB, at most 4), NAME.txt (the
# run's lines, eval, the report), NAME.json (pkb report --json), build.log, env.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
START=$(date +%s)
[ $# -eq 3 ] || { echo "usage: $0 PKB_DIR RANGE NAME" >&2; exit 2; }
PKB=$(cd "$1" && pwd) || { echo "no PKB checkout at $1" >&2; exit 2; }
RANGE=$2
NAME=$3
OUT=${OUT:-$ROOT/out-pkb}
mkdir -p "$OUT"
TXT=$OUT/$NAME.txt
: > "$TXT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PARASCOPE_RESOURCES=$ROOT/resources
DEADLINE=${PKB_DEADLINE_S:-500}
TIMEOUT=${PKB_TASK_TIMEOUT_S:-40}
LAUNCHER=${PKB_LAUNCHER:-direct}
say() { echo "[$(( $(date +%s) - START )) s] $*" | tee -a "$TXT"; }
left() { echo $(( DEADLINE - ($(date +%s) - START) )); }

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  (cd "$PKB" && git log -1 --format='PKB %h %cd' 2>/dev/null || echo "PKB (no git)"); } > "$OUT/env.txt" 2>&1

# ---- the binaries: carried, else built (cmake --preset gpu, 3 targets)
BIN=${PKB_BIN:-$ROOT/.carry/pkb-bin}
CLI=$BIN/parascope-cli
KLIB=$BIN/libparascope_pkb_kernels.so
if [ -x "$CLI" ] && "$CLI" --version > /dev/null 2>&1 && [ -f "$BIN/libparascope_cupti.so" ] && [ -f "$KLIB" ]; then
  say "using the prebuilt binaries in $BIN"
  echo "prebuilt: $BIN" > "$OUT/build.log"
else
  CLI=$ROOT/build/gpu/app/cli/parascope-cli
  KLIB=$ROOT/build/gpu/kernels/libparascope_pkb_kernels.so
  if ! { [ -x "$CLI" ] && [ -f "$KLIB" ]; }; then
    say "building parascope-cli, libparascope_cupti.so, libparascope_pkb_kernels.so"
    { cmake --preset gpu && cmake --build build/gpu -j "$(nproc)" --target parascope-cli parascope_cupti parascope_pkb_kernels; } \
      > "$OUT/build.log" 2>&1
  fi
  if [ ! -x "$CLI" ] || [ ! -f "$KLIB" ]; then
    say "BUILD FAILED"; tail -30 "$OUT/build.log" | tee -a "$TXT"; exit 1
  fi
  say "built"
fi

# ---- the suite folder: kept on the machine between calls, or seeded from a carried tarball
KEEP=$ROOT/.pkb-suites
SUITE=$KEEP/$NAME
mkdir -p "$KEEP"
if [ ! -d "$SUITE" ] && [ -n "${PKB_RESUME:-}" ] && [ -f "$PKB_RESUME" ]; then
  tar -C "$KEEP" -xzf "$PKB_RESUME" && say "resumed from $PKB_RESUME"
fi
run_tasks() {  # PROBLEMS SECONDS_TO_KEEP
  local budget=$(( $(left) - ${2:-0} ))
  (( budget < 20 )) && { say "no time left for tasks $1"; return 0; }
  say "pkb run --problems $1 (deadline ${budget} s, timeout ${TIMEOUT} s per task, launcher $LAUNCHER)"
  "$CLI" pkb run --pkb "$PKB" -o "$SUITE" --problems "$1" --world 1 --timeout "$TIMEOUT" --deadline "$budget" \
    --launcher "$LAUNCHER" 2>&1 | tee -a "$TXT"
}
if [ "${PKB_EVAL:-0}" = 1 ]; then
  # the tasks Parascope has solutions for first (their references make the predictions), then the
  # range, keeping PKB_EVAL_RESERVE_S for the eval
  EVAL_IDS=${PKB_EVAL_PROBLEMS:-1,2,7,8,12,16}
  run_tasks "$EVAL_IDS"
  run_tasks "$RANGE" "${PKB_EVAL_RESERVE_S:-150}"
  SOL=$SUITE/solutions_cuda
  say "pkb solutions (predictions written before the eval)"
  "$CLI" pkb solutions -o "$SOL" --pkb "$PKB" --kernels "$KLIB" --suite "$SUITE" 2>&1 | tee -a "$TXT"
  budget=$(left)
  if (( budget > 40 )); then
    say "pkb eval --problems $EVAL_IDS (world 1, ${PKB_EVAL_TRIALS:-1} trial(s) each, ${budget} s left)"
    timeout --kill-after=10 $(( budget - 20 )) "$CLI" pkb eval --pkb "$PKB" --solutions "$SOL" --suite "$SUITE" --world 1 \
      --problems "$EVAL_IDS" --trials "${PKB_EVAL_TRIALS:-1}" --timeout 90 2>&1 | tee -a "$TXT"
  else
    say "no time left for the eval"
  fi
else
  run_tasks "$RANGE"
fi

# ---- what comes back
say "pkb report"
"$CLI" pkb report "$SUITE" --topology h200x2 -q 2>&1 | tee -a "$TXT" > /dev/null
"$CLI" pkb report "$SUITE" --topology h200x2 --json > "$OUT/$NAME.json" 2>> "$TXT"
# at most 16 MiB a file and 8 files come back: parts of 15 MiB, at most 4 of them; beyond that the
# uncut record/ folders stay behind, then every trace (the report JSON has the numbers)
pack() {  # TAR-EXCLUDES...
  rm -f "$OUT/$NAME.tar.gz" "$OUT/$NAME.tar.gz.part-"*
  tar -C "$KEEP" -czf "$OUT/$NAME.tar.gz" "$@" "$NAME"
  local size; size=$(stat -c %s "$OUT/$NAME.tar.gz")
  (( size <= 15 * 1024 * 1024 )) && return 0
  (( size > 60 * 1024 * 1024 )) && return 1
  split -b 15M "$OUT/$NAME.tar.gz" "$OUT/$NAME.tar.gz.part-" && rm "$OUT/$NAME.tar.gz"
  say "the suite is $(( size / 1024 / 1024 )) MiB: in parts (cat $NAME.tar.gz.part-* > $NAME.tar.gz)"
}
pack || { say "over 60 MiB: without the uncut record/ folders"; pack --exclude="$NAME/tasks/*/record"; } ||
  { say "still over 60 MiB: without traces"; pack --exclude="$NAME/tasks/*/record" --exclude="*.pstrace"; }
say "done: $(ls "$OUT" | tr '\n' ' ')"
