#!/usr/bin/env bash
# `parascope-cli pkb run` on the real PKB checkout with a Python that has no torch: tasks 1 and 2
# run under the collector (record), fail within seconds, and their task.json names the package.
# With --one-gpu --world 2, task 1 goes through record --world 2 --rank 0 and fails the same way.
# Exit 77 (skipped) when torch imports, or the checkout is missing.
set -u
CLI=$1
PKB=$2
[ -f "$PKB/run_local.py" ] || { echo "SKIPPED: no PKB checkout at $PKB"; exit 77; }
python3 -c 'import torch' 2> /dev/null && { echo "SKIPPED: python3 imports torch here"; exit 77; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$CLI" pkb run --pkb "$PKB" -o "$OUT/suite" --problems 1-2 --launcher direct --timeout 120 || { echo "pkb run failed"; exit 1; }
for stem in 1_allreduce 2_allgather; do
  f=$OUT/suite/tasks/$stem/task.json
  [ -f "$f" ] || { echo "no $f"; exit 1; }
  python3 - "$f" <<'PY' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))
assert t["status"] == "failed", t
assert t["reason"] == "missing Python package 'torch' (No module named 'torch')", t["reason"]
assert t["command"][1] == "record" and t["command"][-2:] == ["--trial", "0"], t["command"]
print(t["stem"], "->", t["reason"])
PY
done
# a second run resumes: both tasks are already in the suite
"$CLI" pkb run --pkb "$PKB" -o "$OUT/suite" --problems 1-2 --launcher direct 2>&1 | grep -q "0 ok, 0 failed, 2 already in" ||
  { echo "the second run did not resume"; exit 1; }
# --one-gpu --world 2: rank 0 of 2 through record --world, failing the same way
"$CLI" pkb run --pkb "$PKB" -o "$OUT/one" --problems 1 --one-gpu --world 2 --timeout 120 -q || { echo "pkb run --one-gpu failed"; exit 1; }
python3 - "$OUT/one/tasks/1_allreduce/task.json" "$OUT/one/suite.json" <<'PY' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
assert t["command"][1:10] == ["record", "-q", "-o", t["command"][4], "--world", "2", "--rank", "0", "--"], t["command"]
assert t["command"][11:13] == ["-u", s["pkb_root"] + "/scripts/worker.py"], t["command"]
assert t["reason"] == "missing Python package 'torch' (No module named 'torch')", t["reason"]
assert s["world"] == 2 and s["one_gpu"] is True, s
print("one-gpu", t["stem"], "->", t["reason"])
PY
echo ok
