#!/usr/bin/env python3
"""scikit-learn's IsotonicRegression on the data of bench/calibration.R.

    python3 bench/calibration_sklearn.py BASE REPS

Reads BASE.s (scores, float64), BASE.y (outcomes), BASE.g (segment codes,
int32) and BASE.chk (the indices of the check scores), written by
calibration.R; times one curve and one curve per segment (fits and
predictions, median of up to REPS calls after a warm-up, at most 8 s a
cell), writes the predictions at the check scores to BASE.p1 and BASE.pK,
and prints the times as one JSON object {"fit1": [seconds, reps], ...}.
"""
import json, sys, time
import numpy as np
from sklearn.isotonic import IsotonicRegression

base, reps = sys.argv[1], int(sys.argv[2])
s = np.fromfile(base + ".s", dtype="<f8")
y = np.fromfile(base + ".y", dtype="<f8")
g = np.fromfile(base + ".g", dtype="<i4")
chk = np.fromfile(base + ".chk", dtype="<i4")

def timed(f):
    f()  # warm-up
    ts = []
    spent = 0.0
    for _ in range(reps):
        t0 = time.perf_counter(); out = f(); dt = time.perf_counter() - t0
        ts.append(dt); spent += dt
        if spent > 8.0:
            break
    return float(np.median(ts)), len(ts), out

res = {}
# one curve
t, r, ir = timed(lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y))
res["fit1"] = [t, r]
t, r, _ = timed(lambda: ir.predict(s))
res["pred1"] = [t, r]
ir.predict(s[chk]).astype("<f8").tofile(base + ".p1")
# one curve per segment: split beforehand (not timed), then a loop of fits
order = np.argsort(g, kind="stable")
keys, starts = np.unique(g[order], return_index=True)
bounds = list(starts) + [len(g)]
parts = [order[bounds[i]:bounds[i + 1]] for i in range(len(keys))]
xs = [s[p] for p in parts]
ys = [y[p] for p in parts]
t, r, models = timed(lambda: [IsotonicRegression(out_of_bounds="clip").fit(a, b) for a, b in zip(xs, ys)])
res["fitK"] = [t, r]
t, r, _ = timed(lambda: [m.predict(a) for m, a in zip(models, xs)])
res["predK"] = [t, r]
pk = np.empty(len(chk))
pos = {int(k): i for i, k in enumerate(keys)}
gc = g[chk]
for k in np.unique(gc):
    sel = gc == k
    pk[sel] = models[pos[int(k)]].predict(s[chk][sel])
pk.astype("<f8").tofile(base + ".pK")
print(json.dumps(res))
