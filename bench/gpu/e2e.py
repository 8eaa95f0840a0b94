#!/usr/bin/env python3
"""End to end from host data, beside bench/gpu/e2e.R (issue 12).

    python3 bench/gpu/e2e.py OUT.csv [SHAPES]

* torchisotonic 0.2.1 (the paper's operator) called as its users call it on
  host data: torch.from_numpy(y).cuda(), torchisotonic.isotonic(...),
  .cpu().numpy(); rows x n NumPy arrays (one problem per row), float64 and
  float32 (the array already in that dtype), increasing fits, wall clock
  (time.perf_counter) around the three steps, median of 3 to 15 after a
  warm-up.
* the pinned copy bandwidth: an 800 MB page-locked tensor to the device and
  back, timed with CUDA events, the floor of any host-data call.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time

import numpy as np
import torch


def shapes_from(arg: str) -> list[tuple[int, int]]:
    out = []
    for s in arg.split(","):
        r, n = s.split("x")
        out.append((int(float(r)), int(float(n))))
    return out


def wall_ms(f, reps: int) -> list[float]:
    f()
    torch.cuda.synchronize()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t.append(1e3 * (time.perf_counter() - t0))
    return t


def pinned_bandwidth(rows: list) -> None:
    nbytes = 800_000_000
    host = torch.empty(nbytes // 8, dtype=torch.float64, pin_memory=True)
    host.fill_(1.0)
    dev = torch.empty_like(host, device="cuda")
    for direction in ("to device", "to host"):
        times = []
        for _ in range(6):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            if direction == "to device":
                dev.copy_(host, non_blocking=True)
            else:
                host.copy_(dev, non_blocking=True)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        ms = statistics.median(times[1:])
        rows.append({"shape": "800 MB", "impl": f"pinned copy {direction}", "precision": "",
                     "median_ms": ms, "min_ms": min(times[1:]), "reps": 5,
                     "note": f"{nbytes / ms / 1e6:.1f} GB/s"})
        print(rows[-1], flush=True)


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "e2e-peers.csv"
    shapes = shapes_from(sys.argv[2] if len(sys.argv) > 2 else
                         "1x1e5,1x1e6,1x1e7,1x1e8,1e4x1e3,1e3x1e4,1e6x16")
    rows: list = []
    pinned_bandwidth(rows)
    try:
        import torchisotonic
    except Exception as e:  # recorded, not fatal
        rows.append({"shape": "", "impl": "torchisotonic", "precision": "", "median_ms": "",
                     "min_ms": "", "reps": 0, "note": f"import failed: {e}"})
        torchisotonic = None
    rng = np.random.default_rng(1)
    for r, n in shapes:
        ramp = np.linspace(0.0, 3.0, n)
        y64 = np.ascontiguousarray(ramp + rng.standard_normal((r, n)))
        for prec, y in (("double", y64), ("single", y64.astype(np.float32))):
            reps = 3 if y.size >= 1e8 else 5 if y.size >= 1e7 else 15
            if torchisotonic is None:
                continue

            def call():
                t = torch.from_numpy(y).cuda()
                fit = torchisotonic.isotonic(t, increasing=True)
                return fit.cpu().numpy()

            try:
                t = wall_ms(call, reps)
                note = ""
            except Exception as e:
                t, note = [float("nan")], f"failed: {e}"
            rows.append({"shape": f"{r:g}x{n:g}", "impl": "torchisotonic from NumPy",
                         "precision": prec, "median_ms": statistics.median(t),
                         "min_ms": min(t), "reps": len(t), "note": note})
            print(rows[-1], flush=True)
        del y64
        torch.cuda.empty_cache()
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["shape", "impl", "precision", "median_ms", "min_ms",
                                          "reps", "note"])
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
