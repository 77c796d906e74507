#!/usr/bin/env python3
"""Scores standin_predict.sh's whatif outputs (issue 21 item 3): per step index i of the in-process run,
  measured ratio   = measured "standin i" / measured "real i"   (the stand-in's distortion, in the trace)
  predicted ratio  = predicted "standin i" (comm_call_us set) / measured "real i"
  replay ratio     = replayed "standin i" (no knob) / measured "standin i"  (the replay's own error)
each as a median with its 25-75 % range over the steps (rank 0, host step ranges). Target: the
predicted ratio's median within 2 % of 1.

usage: standin_predict_score.py --replay JSON --predicted JSON [--label TEXT]"""
import argparse
import json
import re
import statistics

from paired_stats import spread


def steps(path, key):
    with open(path) as f:
        d = json.load(f)
    out = {}
    for s in d[key]["steps"]:
        m = re.fullmatch(r"(real|standin) (\d+)", s["step"])
        if m and s["rank"] == 0:
            out[(m.group(1), int(m.group(2)))] = s
    return out, d[key].get("changes", [])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replay", required=True)
    ap.add_argument("--predicted", required=True)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    rep, _ = steps(a.replay, "replay")
    pred, changes = steps(a.predicted, "prediction")
    idx = sorted(i for (side, i) in pred if side == "standin" and ("real", i) in pred)
    if not idx:
        raise SystemExit("%s: no paired steps 'real i' / 'standin i' in %s" % (a.label, a.predicted))
    real = [pred[("real", i)]["measured_ns"] for i in idx]
    sm = [pred[("standin", i)]["measured_ns"] for i in idx]
    sp = [pred[("standin", i)]["replay_ns"] for i in idx]
    sr = [rep[("standin", i)]["replay_ns"] for i in idx if ("standin", i) in rep]
    print("%s: real step (measured) median %.3f ms, stand-in step measured %.3f ms, predicted %.3f ms; %s"
          % (a.label, statistics.median(real) / 1e6, statistics.median(sm) / 1e6, statistics.median(sp) / 1e6, "; ".join(changes)))
    print("  measured  stand-in / real:            " + spread([s / r for s, r in zip(sm, real)]))
    print("  predicted stand-in / measured real:   " + spread([p / r for p, r in zip(sp, real)]))
    if len(sr) == len(idx):
        print("  replay (no knob) / measured stand-in: " + spread([p / s for p, s in zip(sr, sm)]))


if __name__ == "__main__":
    main()
