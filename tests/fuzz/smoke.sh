#!/usr/bin/env bash
# Runs every libFuzzer target of a `fuzz` build for SECONDS each, one after the other, seeded from
# its corpus (and the real samples), after replaying tests/fuzz/regressions/<target>/. Prints one
# line per target (executions, exec/s, coverage, corpus, crashes) and exits 1 if any target
# crashed, leaked, hung or ran out of memory (the input is kept under the artifact directory).
#
#   tests/fuzz/smoke.sh [-b BUILD_DIR] [-t SECONDS] [-c CORPUS_ROOT] [-a ARTIFACT_DIR] [TARGET...]
#
# .ci/run: 60 s per target. Long runs (docs/reliability.md): -t 600 or more with a kept corpus
# (-c /var/tmp/parascope-fuzz), under `nice`. Without -c the grown corpus is thrown away.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build/fuzz
secs=60
corpus_root=""
artifacts=""
while getopts "b:t:c:a:" o; do
  case $o in
    b) build=$OPTARG ;;
    t) secs=$OPTARG ;;
    c) corpus_root=$OPTARG ;;
    a) artifacts=$OPTARG ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_chrome_json fuzz_pstrace fuzz_nsys_sqlite fuzz_topology_json fuzz_workload_spec fuzz_record_manifest)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$artifacts" ] || artifacts=$tmp/artifacts
mkdir -p "$artifacts"
nsys_dir=${PARASCOPE_NSYS_DIR:-../shared/data/nsys}

seeds_of() {
  case $1 in
    fuzz_topology_json) echo "resources/topologies" ;;
    *) echo "tests/fuzz/corpus/${1#fuzz_}" ;;
  esac
}

failed=0
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/$t
  if [ ! -x "$bin" ]; then
    echo "fuzz: $t: not built ($bin)"; failed=1; continue
  fi
  if [ "$t" = fuzz_nsys_sqlite ] && ! ls "$nsys_dir"/*.sqlite >/dev/null 2>&1; then
    echo "fuzz: $t: skipped, no Nsight exports in $nsys_dir (set PARASCOPE_NSYS_DIR)"; continue
  fi
  corpus=${corpus_root:+$corpus_root/$t}
  corpus=${corpus:-$tmp/corpus/$t}
  mkdir -p "$corpus"
  dict=tests/fuzz/${t#fuzz_}.dict
  args=(-rss_limit_mb=2560 -timeout=30 -print_final_stats=1 -artifact_prefix="$artifacts/$t-")
  [ -f "$dict" ] && args+=(-dict="$dict")
  log=$artifacts/$t.log
  # known crashes first: each must now pass
  if compgen -G "tests/fuzz/regressions/$t/*" >/dev/null; then
    if ! "$bin" "${args[@]}" tests/fuzz/regressions/$t/* >"$log" 2>&1; then
      echo "fuzz: $t: a regression input fails again:"; tail -30 "$log"; failed=1; continue
    fi
  fi
  start=$(date +%s)
  "$bin" "${args[@]}" -max_total_time="$secs" "$corpus" "$(seeds_of "$t")" >"$log" 2>&1
  rc=$?
  runs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$log")
  took=$(( $(date +%s) - start ))
  rate=$(( ${runs:-0} / (took > 0 ? took : 1) ))
  cov=$(grep -oE '(INITED|DONE|pulse|REDUCE|NEW) +cov: [0-9]+' "$log" | tail -1 | awk '{print $NF}')
  echo "fuzz: $t: rc $rc, $took s, ${runs:-?} executions, ${rate:-?} exec/s, cov ${cov:-?}, corpus $(ls "$corpus" | wc -l) files"
  if [ $rc -ne 0 ]; then
    failed=1
    echo "fuzz: $t FAILED; input kept under $artifacts:"; ls "$artifacts" | grep "^$t-" ; grep -m1 -A25 -E 'ERROR|runtime error|Sanitizer|deadly|timeout|out-of-memory' "$log"
  fi
done
exit $failed
