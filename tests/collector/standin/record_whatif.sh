#!/bin/sh
# record --world 4 --rank 0,2 --no-collector of the tensor-parallel MLP (TP 2 x DP 2), then whatif on
# hgx_h200x8: the prediction has 4 ranks, ranks 1 and 3 repeat the recorded 0 and 2, and the stand-in
# collectives form 10 complete two-rank groups (TP [0,1] and [2,3]: 2 calls each; DP [0,2] and
# [1,3]: 3 calls each), so every GPU's NVLink carries the same bytes. Exit 77 without torch.
# usage: record_whatif.sh PARASCOPE_CLI
set -eu
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
py=""
for c in "${PARASCOPE_TORCH_PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$c" ] || continue
  if "$c" -c "import torch.distributed as d; assert d.is_available()" >/dev/null 2>&1; then py=$c; break; fi
done
[ -n "$py" ] || { echo "SKIPPED: no Python here imports torch.distributed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$cli" record --world 4 --rank 0,2 --no-collector -q -o "$dir/rec" -- "$py" "$here/tp_mlp.py"
"$cli" whatif "$dir/rec" --topology hgx_h200x8 --json -q > "$dir/out.json"
python3 - "$dir/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g, r = d["graph"], d["replay"]
def check(what, got, want):
    if got != want:
        sys.exit("%s: got %r, want %r" % (what, got, want))
check("ranks", g["ranks"], 4)
check("groups", g["groups"], 10)
check("complete groups", g["complete_groups"], 10)
check("collective edges", g["edges"]["collective"], 10)
check("ranks with steps", sorted(s["rank"] for s in r["steps"]), [0, 1, 2, 3])
warnings = "\n".join(r.get("warnings", []) + g.get("warnings", []))
for w in ("rank 1 not recorded; it repeats recorded rank 0", "rank 3 not recorded; it repeats recorded rank 2"):
    if w not in warnings:
        sys.exit("missing warning %r in:\n%s" % (w, warnings))
tx = {l["name"]: l["bytes"] for l in r["links"] if l["name"].endswith("->nvswitch")}
check("GPUs sending", sorted(tx), ["gpu%d->nvswitch" % i for i in range(4)])
if len(set(round(b, 3) for b in tx.values())) != 1 or min(tx.values()) <= 0:
    sys.exit("NVLink bytes differ between GPUs: %r" % tx)
print("ok: 4 ranks, 10 groups, %.0f bytes per GPU" % min(tx.values()))
PY
