"""isodistrreg's IDR on the data of bench/idr-multi.R, timed in its own process.

Usage: python bench/idr_peer.py DIR KIND
  DIR holds train.csv (column y, then the covariates) and new.csv (the covariates of the
  points to predict at), both written by run_idr_peer() of bench/common.R (for
  bench/idr.R and bench/idr-multi.R); KIND is the order of the
  covariates: "comp" (componentwise), "sd" or "icx" (all columns one ensemble group).
Writes DIR/peer.csv: the CDF of the training points and of the new points at
DIR/at.csv's thresholds (one row per point), and prints one line
"fit_s predict_s version": the seconds of IDR() (every distinct y a threshold; the
peer has no other) and of cdf_at() at the new points.
Needs isodistrreg (PyPI; 0.6.0 wants Python >= 3.13) and numpy; nothing of it is
kept in this repository.
"""
import sys
import time

import numpy as np
from isodistrreg import IDR, __version__


def main():
    folder, kind = sys.argv[1], sys.argv[2]
    train = np.loadtxt(f"{folder}/train.csv", delimiter=",", skiprows=1, ndmin=2)
    new = np.loadtxt(f"{folder}/new.csv", delimiter=",", skiprows=1, ndmin=2)
    at = np.loadtxt(f"{folder}/at.csv", delimiter=",", skiprows=1, ndmin=1)
    y, X = train[:, 0], train[:, 1:]
    order = None if kind == "comp" else [(kind, list(range(X.shape[1])))]
    t0 = time.perf_counter()
    model = IDR(y, X, X_order=order)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    pred = model.cdf_at(new[:, None, :], at[None, :])
    predict_s = time.perf_counter() - t0
    ins = model.cdf_at(X[:, None, :], at[None, :])
    out = np.vstack([np.asarray(ins).reshape(len(y), -1),
                     np.asarray(pred).reshape(len(new), -1)])
    np.savetxt(f"{folder}/peer.csv", out, delimiter=",")
    print(f"{fit_s:.6f} {predict_s:.6f} {__version__}")


if __name__ == "__main__":
    main()
