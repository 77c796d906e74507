#!/usr/bin/env python3
"""Freezes the simulator's one-direction NCCL send predictions on h200x2 (issue 20 item 5: the model
of `send` comes from NCCL's source, with no one-direction measurement yet), so that a later
measurement on 2 x H200 scores them blind. Writes OUT/predictions.json with the commit it ran at.
  python3 scripts/sim/freeze_send_predictions.py --cli build/debian/app/cli/parascope-cli --out resources/predictions/send
Refuses to run on a dirty tree (the commit must be the model's) and never overwrites a frozen file."""
import argparse, datetime, json, os, subprocess, sys

SIZES = ["4MiB", "16MiB", "64MiB", "256MiB", "1GiB"]

ap = argparse.ArgumentParser()
ap.add_argument("--cli", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--topology", default="h200x2")
a = ap.parse_args()
out = os.path.join(a.out, "predictions.json")
if os.path.exists(out):
    sys.exit(f"{out} exists: frozen predictions are never regenerated (write a new folder)")
if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip():
    sys.exit("the work tree has uncommitted changes: commit the model first")
commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
rows = []
for op in ("send", "sendrecv"):
    for size in SIZES:  # the model is dtype-blind for a copy: bf16 and fp32 of one size are one prediction
        spec = f"{op}:bytes={size},gpus=2"
        r = subprocess.run([a.cli, "simulate", "-t", a.topology, "-w", spec, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"simulate {spec}: {r.stderr.strip()}")
        rows.append({"op": op, "bytes": size, "predicted_us": round(json.loads(r.stdout)["time_ns"] / 1e3, 3)})
doc = {
    "what": "one-direction NCCL send (rank 0 -> 1, ncclSend/ncclRecv without the reverse) and, beside it, the exchange "
            "(both directions at once, the fit rows' shape), predicted before any one-direction measurement",
    "model_commit": commit,
    "made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "topology": a.topology,
    "command": " ".join(sys.argv),
    "truth": "not measured yet: measure one direction with NCCL on 2 x H200 (events, median of >= 20 iterations), then score once",
    "rows": rows,
}
os.makedirs(a.out, exist_ok=True)
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
print(f"wrote {out}: {len(rows)} predictions at {commit[:7]}")
