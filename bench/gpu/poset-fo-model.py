"""The iterations of bench/gpu/poset-fo.cu, in NumPy on the CPU: how many a
first-order method needs before every threshold's fit rounds to the exact one.

    python3 bench/gpu/poset-fo-model.py FILE METHOD MAX_IT CHECK_EVERY

FILE from bench/gpu/poset-fo-data.R; METHOD fista, restart (fista with the
gradient restart of O'Donoghue and Candes, per threshold) or pdhg. The same
iterations as the CUDA program (restart only here), from zero; a check rounds
each threshold's fit: nodes joined through covering pairs whose fits differ by
at most tol form blocks, each block takes the exact mean of its y, and the
threshold counts as rounded when those means equal the exact fit to 1e-10 at
every node for some tol in 1e-3 ... 1e-8 (an oracle choice: the counts are a
lower bound for the method). No timing: the GPU's time per iteration comes
from the CUDA program.
"""
import sys

import numpy as np


def read(path):
    with open(path, "rb") as f:
        n, E, K = (int(v) for v in np.frombuffer(f.read(12), np.int32))
        fr = np.frombuffer(f.read(4 * E), np.int32)
        to = np.frombuffer(f.read(4 * E), np.int32)
        w = np.frombuffer(f.read(8 * n))
        y = np.frombuffer(f.read(8 * n * K)).reshape(n, K)
        exact = np.frombuffer(f.read(8 * n * K)).reshape(n, K)
    return n, E, K, fr, to, w, y, exact


def components(n, a, b):
    """Connected components of the pairs (a, b): a label per node."""
    lab = np.arange(n)
    while True:
        old = lab.copy()
        m = np.minimum(lab[a], lab[b])
        np.minimum.at(lab, a, m)
        np.minimum.at(lab, b, m)
        lab = lab[lab]
        if (lab == old).all():
            return lab


def rounds(f, k, g):
    n, fr, to, w, y, exact = g["n"], g["fr"], g["to"], g["w"], g["y"], g["exact"]
    fk = f[:, k]
    for tol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8):
        keep = np.abs(fk[fr] - fk[to]) <= tol
        lab = components(n, fr[keep], to[keep])
        sw = np.bincount(lab, weights=w, minlength=n)
        swy = np.bincount(lab, weights=w * y[:, k], minlength=n)
        if np.abs(swy[lab] / sw[lab] - exact[:, k]).max() <= 1e-10:
            return True
    return False


def main():
    path, method, max_it, every = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    n, E, K, fr, to, w, y, exact = read(path)
    g = dict(n=n, fr=fr, to=to, w=w, y=y, exact=exact)
    deg = np.bincount(fr, minlength=n) + np.bincount(to, minlength=n)
    # the diagonal majorant of D W^-1 D^T (diagonal dominance)
    step = 1.0 / (deg[fr] / w[fr] + deg[to] / w[to])

    def dt(lam):  # D^T lam: + at `from`, - at `to`
        d = np.zeros((n, K))
        np.add.at(d, fr, lam)
        np.add.at(d, to, -lam)
        return d

    def fit(lam):
        return y - dt(lam) / w[:, None]

    lam = np.zeros((E, K))
    mu = lam.copy()
    t = np.ones(K)
    f = y.copy()
    tau = 1.0 / np.maximum(deg, 1)
    print(f"n = {n}, E = {E}, K = {K}, method {method}")
    for it in range(1, max_it + 1):
        if method in ("fista", "restart"):
            fm = fit(mu)
            new = np.maximum(0.0, mu + step[:, None] * (fm[fr] - fm[to]))
            if method == "restart":
                t[((mu - new) * (new - lam)).sum(axis=0) > 0] = 1.0
            tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            mu = new + ((t - 1.0) / tn)[None, :] * (new - lam)
            lam, t = new, tn
        elif method == "pdhg":
            fn = (f - tau[:, None] * dt(lam) + (tau * w)[:, None] * y) / (1.0 + (tau * w)[:, None])
            fbar = 2.0 * fn - f
            f = fn
            lam = np.maximum(0.0, lam + 0.5 * (fbar[fr] - fbar[to]))
        else:
            sys.exit(f"unknown method {method}")
        if it % every == 0:
            cur = fit(lam) if method != "pdhg" else f
            bad = sum(not rounds(cur, k, g) for k in range(K))
            print(f"{method} it {it}: max |f - exact| {np.abs(cur - exact).max():.2e}, "
                  f"thresholds not rounded to the exact fit {bad} of {K}", flush=True)
            if bad == 0:
                print(f"{method}: every threshold rounds to the exact fit at iteration {it}")
                return
    print(f"{method}: not every threshold rounds after {max_it} iterations")


if __name__ == "__main__":
    main()
