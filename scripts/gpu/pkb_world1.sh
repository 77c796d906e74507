#!/usr/bin/env bash
# ParallelKernelBench's references at world 1 under the collector, PKB's eval of Parascope's
# solutions at world 1, and optionally a few references as rank 0 of N on this one GPU (issue 22;
# docs/pkb.md). One call runs its passes in order and starts no task past its deadline; the same
# NAME run again resumes (the suite folder stays in $ROOT/.pkb-suites/NAME on a warm machine, or is
# seeded from a carried PKB_RESUME tarball). Only the tasks this call ran come back; the suite of
# several calls is put together here by scripts/pkb_refresh.sh.
# Usage (repo root, GPU machine):
#   scripts/gpu/pkb_world1.sh PKB_DIR PASSES NAME
#     PKB_DIR  the ParallelKernelBench checkout carried into the repo (e.g. .carry/pkb)
#     PASSES   problem ranges run one after another, '/' between them: 1-44, 45-87/1-44 (a later pass
#              skips what is already in the suite), 1,2,7-8, or "" for none (one-GPU only)
#     NAME     the suite's name
# Environment:
#   PKB_DEADLINE_S    seconds from the start by which everything (tasks, report, packing) ends
#                     (default 500); the tasks stop PKB_TAIL_S (default 30) before it
#   PKB_TASK_TIMEOUT_S  per task (default 30)
#   PKB_LAUNCHER      direct (default: worker.py as torchrun starts it) or run_local (PKB's launcher)
#   PKB_EVAL=1        first the tasks Parascope has solutions for (PKB_EVAL_PROBLEMS, default
#                     1,2,7,8,12,16), then PASSES keeping PKB_EVAL_RESERVE_S (default 150) for
#                     `pkb solutions` (predictions written before the eval) and PKB's eval of them
#                     (PKB_EVAL_TRIALS, default 1)
#   PKB_ONE_GPU=N:PROBLEMS  after the passes (keeping PKB_ONE_GPU_RESERVE_S, default 70, for it):
#                     `pkb run --one-gpu --world N` of PROBLEMS into suite NAME-ogN, reported on
#                     hgx_h200x8 (N > 2) or h200x2
#   PKB_RESUME        a NAME.tar.gz of an earlier call, unpacked when the suite folder is missing
#   PKB_BIN           prebuilt parascope-cli, libparascope_cupti.so and libparascope_pkb_kernels.so
#                     (default .carry/pkb-bin); else they are built here (cmake --preset gpu)
#   PKB_MAX_MIB       the most the suite tarball may be (default 45: 3 parts of 15 MiB)
# Files back: NAME.txt (every task's line, the eval, the report tables) and NAME.tar.gz (or
# NAME.tar.gz.part-aa.. of 15 MiB): NAME/ (suite.json, this call's tasks, solutions), NAME-ogN/,
# report/ (pkb report --json and --csv of each suite), env.txt, build.log.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
START=$(date +%s)
[ $# -eq 3 ] || { echo "usage: $0 PKB_DIR PASSES NAME" >&2; exit 2; }
PKB=$(cd "$1" && pwd) || { echo "no PKB checkout at $1" >&2; exit 2; }
PASSES=$2
NAME=$3
OUT=${OUT:-$ROOT/out-pkb}
mkdir -p "$OUT"
TXT=$OUT/$NAME.txt
: > "$TXT"
W=$(mktemp -d /tmp/parascope-pkb.XXXXXX)
mkdir -p "$W/report"
STAMP=$W/started
touch "$STAMP"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PARASCOPE_RESOURCES=$ROOT/resources PARASCOPE_PYTHON_DIR=$ROOT/trace/collector/python
DEADLINE=${PKB_DEADLINE_S:-500}
TAIL=${PKB_TAIL_S:-30}
TIMEOUT=${PKB_TASK_TIMEOUT_S:-30}
LAUNCHER=${PKB_LAUNCHER:-direct}
say() { echo "[$(( $(date +%s) - START )) s] $*" | tee -a "$TXT"; }
left() { echo $(( DEADLINE - ($(date +%s) - START) )); }

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1; nproc
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  git log -1 --format='parascope %h %s' 2>/dev/null || echo "parascope (no git)"
  (cd "$PKB" && git log -1 --format='PKB %h %cd' 2>/dev/null || echo "PKB (no git)"); } > "$W/env.txt" 2>&1

# ---- the binaries: carried, else built (cmake --preset gpu, 3 targets; kept on a warm machine)
BIN=${PKB_BIN:-$ROOT/.carry/pkb-bin}
CLI=$BIN/parascope-cli
KLIB=$BIN/libparascope_pkb_kernels.so
loads() { python3 -c 'import ctypes, sys; [ctypes.CDLL(p) for p in sys.argv[1:]]' "$@" 2> /dev/null; }
if [ -x "$CLI" ] && "$CLI" --version > /dev/null 2>&1 && loads "$BIN/libparascope_cupti.so" "$KLIB"; then
  say "using the prebuilt binaries in $BIN"
  echo "prebuilt: $BIN" > "$W/build.log"
else
  CLI=$ROOT/build/gpu/app/cli/parascope-cli
  KLIB=$ROOT/build/gpu/kernels/libparascope_pkb_kernels.so
  say "building parascope-cli, libparascope_cupti.so, libparascope_pkb_kernels.so (up to date on a warm machine)"
  { cmake --preset gpu && cmake --build build/gpu -j "$(nproc)" --target parascope-cli parascope_cupti parascope_pkb_kernels; } \
    > "$W/build.log" 2>&1
  if [ ! -x "$CLI" ] || [ ! -f "$KLIB" ]; then
    say "BUILD FAILED"; tail -30 "$W/build.log" | tee -a "$TXT"; cp "$W/build.log" "$OUT/"; exit 1
  fi
  say "built"
fi

# ---- the suite folder: kept on the machine between calls, or seeded from a carried tarball
KEEP=$ROOT/.pkb-suites
SUITE=$KEEP/$NAME
mkdir -p "$KEEP"
OGW=${PKB_ONE_GPU:-x}
OGW=${OGW%%:*}
if [ -n "${PKB_RESUME:-}" ] && [ -f "$PKB_RESUME" ] && [ ! -d "$SUITE" ] && [ ! -d "$SUITE-og$OGW" ]; then
  # the world-1 suite and the one-GPU suite, whichever the tarball holds
  tar -C "$KEEP" -xzf "$PKB_RESUME" --wildcards "$NAME/*" "$NAME-og*" 2> /dev/null
  say "resumed from $PKB_RESUME: $(ls "$KEEP" | tr '\n' ' ')"
  touch "$STAMP"  # what it held is not this call's
fi
run_tasks() {  # PROBLEMS SECONDS_TO_KEEP [pkb run options...]: into $SUITE unless -o follows
  local problems=$1 keep=$2 budget
  shift 2
  budget=$(( $(left) - TAIL - keep ))
  (( budget < 20 )) && { say "no time left for tasks $problems"; return 0; }
  say "pkb run --problems $problems $* (deadline ${budget} s, timeout ${TIMEOUT} s per task, launcher $LAUNCHER)"
  "$CLI" pkb run --pkb "$PKB" -o "$SUITE" --problems "$problems" --timeout "$TIMEOUT" --deadline "$budget" \
    --launcher "$LAUNCHER" "$@" 2>&1 | tee -a "$TXT"
}
OG_WORLD= OG_PROBLEMS= OG_KEEP=0
if [ -n "${PKB_ONE_GPU:-}" ]; then
  OG_WORLD=${PKB_ONE_GPU%%:*} OG_PROBLEMS=${PKB_ONE_GPU#*:} OG_KEEP=${PKB_ONE_GPU_RESERVE_S:-70}
fi
EVAL_KEEP=0
if [ "${PKB_EVAL:-0}" = 1 ]; then
  EVAL_IDS=${PKB_EVAL_PROBLEMS:-1,2,7,8,12,16}
  EVAL_KEEP=${PKB_EVAL_RESERVE_S:-150}
  run_tasks "$EVAL_IDS" $(( EVAL_KEEP + OG_KEEP )) --world 1  # their references make the predictions
fi
IFS=/ read -r -a PASS_LIST <<< "$PASSES"
for pass in "${PASS_LIST[@]}"; do run_tasks "$pass" $(( EVAL_KEEP + OG_KEEP )) --world 1; done
if [ "${PKB_EVAL:-0}" = 1 ]; then
  SOL=$SUITE/solutions_cuda
  say "pkb solutions (predictions written before the eval)"
  "$CLI" pkb solutions -o "$SOL" --pkb "$PKB" --kernels "$KLIB" --suite "$SUITE" 2>&1 | tee -a "$TXT"
  budget=$(( $(left) - TAIL - OG_KEEP ))
  if (( budget > 40 )); then
    say "pkb eval --problems $EVAL_IDS (world 1, ${PKB_EVAL_TRIALS:-1} trial(s) each, ${budget} s left)"
    timeout --kill-after=10 $(( budget - 10 )) "$CLI" pkb eval --pkb "$PKB" --solutions "$SOL" --suite "$SUITE" --world 1 \
      --problems "$EVAL_IDS" --trials "${PKB_EVAL_TRIALS:-1}" --timeout 90 2>&1 | tee -a "$TXT"
  else
    say "no time left for the eval"
  fi
fi
SUITES=("$NAME")
TOPO=("h200x2")
if [ -n "$OG_WORLD" ]; then
  SUITE=$KEEP/$NAME-og$OG_WORLD
  SUITES+=("$NAME-og$OG_WORLD")
  TOPO+=("$([ "$OG_WORLD" -gt 2 ] && echo hgx_h200x8 || echo h200x2)")
  run_tasks "$OG_PROBLEMS" 0 --world "$OG_WORLD" --one-gpu
fi

# ---- the report of each suite (one pass: JSON and CSV), bounded by the deadline
for i in "${!SUITES[@]}"; do
  s=${SUITES[$i]} t=${TOPO[$i]}
  budget=$(( $(left) - 10 ))
  (( budget < 10 )) && { say "no time left for the report of $s (scripts/pkb_refresh.sh makes it from the traces)"; continue; }
  say "pkb report $s --topology $t"
  timeout --kill-after=5 "$budget" "$CLI" pkb report "$KEEP/$s" --topology "$t" --json --csv "$W/report/$s" \
    > "$W/report/$s.json" 2>> "$TXT" || say "the report of $s did not finish"
  [ -f "$W/report/$s/pkb_suite.csv" ] && { echo "--- $s on $t"; cat "$W/report/$s/pkb_suite.csv"; } >> "$TXT"
done

# ---- what comes back: this call's tasks (task.json newer than the call's start), in parts of
# 15 MiB when larger; over PKB_MAX_MIB the uncut record/ folders stay behind, then every trace
MAX=$(( ${PKB_MAX_MIB:-45} * 1024 * 1024 ))
LIST=$W/files
: > "$LIST"
for s in "${SUITES[@]}"; do
  [ -d "$KEEP/$s" ] || continue
  (cd "$KEEP" && { echo "$s/suite.json"; find "$s" -maxdepth 1 -mindepth 1 -type d ! -name tasks
     find "$s/tasks" -mindepth 2 -maxdepth 2 -name task.json -newer "$STAMP" -printf '%h\n'; }) >> "$LIST"
done
cp "$W/env.txt" "$W/build.log" "$W/report/" 2> /dev/null
pack() {  # TAR-EXCLUDES...
  rm -f "$OUT/$NAME.tar.gz" "$OUT/$NAME.tar.gz.part-"*
  tar -czf "$OUT/$NAME.tar.gz" "$@" -C "$KEEP" -T "$LIST" -C "$W" report
  local size; size=$(stat -c %s "$OUT/$NAME.tar.gz")
  (( size <= 15 * 1024 * 1024 )) && return 0
  (( size > MAX )) && return 1
  split -b 15M "$OUT/$NAME.tar.gz" "$OUT/$NAME.tar.gz.part-" && rm "$OUT/$NAME.tar.gz"
  say "the tarball is $(( size / 1024 / 1024 )) MiB: in parts (cat $NAME.tar.gz.part-* > $NAME.tar.gz)"
}
say "packing $(grep -c /tasks/ "$LIST") tasks of this call"
pack || { say "over $(( MAX >> 20 )) MiB: without the uncut record/ folders"; pack --exclude="*/tasks/*/record"; } ||
  { say "still over: without traces"; pack --exclude="*/tasks/*/record" --exclude="*.pstrace"; }
rm -rf "$W"
say "done: $(ls "$OUT" | tr '\n' ' ')"
