"""torchisotonic's forward and backward kernel times on the cells of kernels.R.

Usage: python3 bench/gpu/kernels_peers.py OUT.csv

Data as in kernels.R (the same definitions, not the same numbers). Forward:
torchisotonic.isotonic(y, w, increasing=False) on CUDA tensors. Backward:
torch.autograd.grad through that call with respect to y (and w when weighted)
for a N(0, 1) upstream gradient, the forward pass outside the timed region.
Each call is timed with a pair of CUDA events after a warm-up call; medians
of 20 calls.
"""
import os
import sys

import torch
import torchisotonic

SHAPES = os.environ.get("GPUISO_BENCH_SHAPES",
                        "100x1e3,1e6x16,1e4x1e3,1e3x1e4,1x1e6,1x1e7,1x1e8").split(",")
REPS = 20


def times(f):
    f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(REPS):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2], ts[len(ts) // 4], ts[(3 * len(ts)) // 4]


def main():
    out = open(sys.argv[1], "w")
    out.write("impl,pass,shape,data,weights,precision,median_ms,q1_ms,q3_ms,stages\n")
    torch.manual_seed(20261201)
    for sh in SHAPES:
        rows, n = (int(float(x)) for x in sh.split("x"))
        ramp = torch.linspace(0, 3, n, device="cuda", dtype=torch.float64).repeat(rows, 1)
        for data in ["noisy", "increasing"]:
            y64 = ramp + torch.randn(rows, n, device="cuda", dtype=torch.float64) \
                if data == "noisy" else ramp
            for wt in [False, True]:
                w64 = torch.rand(rows, n, device="cuda", dtype=torch.float64) * 1.5 + 0.5 \
                    if wt else None
                for dt, prec in [(torch.float32, "float32"), (torch.float64, "float64")]:
                    y = y64.to(dt)
                    w = w64.to(dt) if wt else None
                    fwd = times(lambda: torchisotonic.isotonic(y, w, increasing=False))
                    yg = y.clone().requires_grad_(True)
                    wg = w.clone().requires_grad_(True) if wt else None
                    z = torchisotonic.isotonic(yg, wg, increasing=False)
                    g = torch.randn_like(z)
                    ins = (yg, wg) if wt else (yg,)
                    bwd = times(lambda: torch.autograd.grad(z, ins, g, retain_graph=True))
                    for pas, t in [("forward", fwd), ("backward", bwd)]:
                        line = (f"torchisotonic,{pas},{sh},{data},"
                                f"{'weighted' if wt else 'none'},{prec},"
                                f"{t[0]:.4f},{t[1]:.4f},{t[2]:.4f},")
                        out.write(line + "\n")
                        out.flush()
                        print(line, flush=True)
                    del y, w, yg, wg, z, g
            del y64
        del ramp
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
