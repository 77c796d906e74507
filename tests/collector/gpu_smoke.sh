#!/bin/sh
# GPU smoke test of the collector (ctest label gpu): records 200 kernels of the collector bench
# through `parascope-cli record` and requires the trace to hold exactly 200 spin kernels on
# device 0 and a closed file. Exit 77 (ctest: skipped) without a GPU.
set -eu
cli=$1 bench=$2 dump=$3
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q "^GPU 0"; then
  echo "SKIPPED: no GPU (nvidia-smi lists no GPU 0)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$cli" record -q -o "$dir" --kinds default -- "$bench" spin --kernels 200 --us 20
"$dump" --jsonl "$dir" > "$dir/records.jsonl"
n=$(grep '"t":"kernel"' "$dir/records.jsonl" | grep -c 'spin_kernel' || true)
echo "spin kernels recorded: $n (expected 201: 200 + the warm-up launch)"
[ "$n" -eq 201 ]
grep -q '"complete": true' "$dir/manifest.json" || { echo "manifest does not mark the trace complete"; exit 1; }
