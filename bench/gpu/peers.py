#!/usr/bin/env python3
"""Kernel times of the GPU peers of gpuiso: torchisotonic and torchsort.

Usage (on the GPU machine, after the peers are installed; see run.sh):

    python3 bench/gpu/peers.py OUT.csv [--direction decreasing|increasing]
        [--impls torchisotonic,torchsort] [--shapes 100x1e3,1e6x16,...]
        [--data noisy,increasing] [--precision float32,float64]
        [--budget-s SECONDS] [--seed N]

What is timed (per cell = shape x data x precision):
  * the data are generated on the GPU and stay there; nothing is copied between host and
    device inside the timed region;
  * each call is bracketed by a pair of torch.cuda.Event records on the current stream
    (start.record(); fit = solver(y); end.record(); end.synchronize()), so a time is the
    GPU time from the start of the call to the end of its last kernel, allocations and
    launch gaps inside the call included;
  * one warm-up call per solver and dtype on a small input before all cells (module
    loading, the JIT build of torchisotonic); then per cell a first call (the cell's warm-up,
    also timed as a probe) and 30 timed calls when it took < 10 ms, 10 when it took
    < --slow-call-s (1 s); a slower cell is timed twice only, its probe counted as the first
    of the two (the paper's "two for the slowest torchsort cells"); the CSV holds the median
    and the quartiles;
  * peak memory: torch.cuda.max_memory_allocated() over the timed calls, less what was
    allocated before them (the input), in the note (both peers allocate through torch).

The solvers:
  * torchisotonic 0.2.1: the public torchisotonic.isotonic(y, increasing=..., exact=True)
    (increasing=False for decreasing fits), which on CUDA runs its tile pipeline
    (torch.ops.torchisotonic.isotonic_tiles), in y's dtype.
  * torchsort 0.1.10: torchsort.isotonic_cuda.isotonic_l2(y), the compiled CUDA kernel
    behind torchsort.ops.isotonic_l2["cuda"] (soft_sort/soft_rank call it on transformed
    inputs; we call it directly on the data). It solves argmin_{v_1 >= ... >= v_n}
    0.5 ||v - y||^2 for every row of a 2-D tensor, i.e. a DECREASING unweighted L2 fit,
    with pool adjacent violators on ONE GPU THREAD PER ROW. An increasing fit is
    -isotonic_l2(-y): the input is negated before timing and the output's sign is not
    flipped inside the timed region (one elementwise op, negligible against its times).
    torchsort keeps block bounds and counts in y's dtype, so float32 rows longer than
    2^24 are not exact, and one thread per row takes ~0.5 us per element (1 x 1e7 is ~5 s
    on an H200): it is skipped where one call is estimated to take longer than
    --max-call-s (10 s), which skips 1 x 1e8.

Data (same definitions as gpuiso.R): "noisy" = a ramp from 0 to 3 over each row plus
standard normal noise; "increasing" = the ramp alone (linspace(0, 3, n): strictly increasing
in float64; in float32 neighbouring values of long rows can round to ties). Generated in
float64 on the GPU with a seeded generator, then cast to the precision of the cell.

Sanity checks (untimed, in the note): the largest violation of monotonicity in the requested
direction, the largest error of the row sums (an L2 isotonic fit preserves each row's sum),
and, for cells of <= 1e5 elements, the largest difference to
sklearn.isotonic.isotonic_regression in float64.

Robust by design: a peer that fails to import, a cell that fails (OOM, ...) or a spent time
budget is recorded in the note column and the script carries on. Rows are written and
flushed one by one, so a run killed by a timeout keeps the cells it finished.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import statistics
import sys
import time
import traceback

COLUMNS = ["impl", "shape", "rows", "n", "data", "precision", "direction",
           "median_ms", "q1_ms", "q3_ms", "reps", "note"]

DEFAULT_SHAPES = "100x1e3,1e6x16,1e4x1e3,1e3x1e4,1x1e6,1x1e7,1x1e8"

# torchsort: one GPU thread per row, ~0.5 us per element of a row on an H200 (seen:
# 1 x 1e6: 435 ms, 1 x 1e7: 4.8 s). Used only to skip cells that would take too long.
TORCHSORT_S_PER_ELEMENT = 5e-7


def parse_count(s: str) -> int:
    v = float(s)
    if v != int(v) or v < 1:
        raise ValueError(f"not a positive whole number: {s!r}")
    return int(v)


def label(x: int) -> str:
    """100 -> '100', 1000 -> '1e3', 16 -> '16' (the same labels as gpuiso.R)."""
    if x >= 1000:
        k = round(math.log10(x))
        if 10 ** k == x:
            return f"1e{k}"
    return str(x)


def parse_shapes(spec: str) -> list[tuple[int, int]]:
    out = []
    for item in spec.split(","):
        item = item.strip().lower()
        if not item:
            continue
        r, n = item.split("x")
        out.append((parse_count(r), parse_count(n)))
    return out


def quartiles(ts: list[float]) -> tuple[float, float, float]:
    med = statistics.median(ts)
    if len(ts) < 2:
        return med, med, med
    q1, _, q3 = statistics.quantiles(ts, n=4, method="inclusive")
    return med, q1, q3


def one_line(s: str, limit: int = 300) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


class Writer:
    def __init__(self, path: str):
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        self.f = open(path, "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=COLUMNS)
        self.w.writeheader()
        self.f.flush()

    def row(self, **kw):
        r = {c: kw.get(c, "") for c in COLUMNS}
        for c in ("median_ms", "q1_ms", "q3_ms"):
            if isinstance(r[c], float):
                r[c] = f"{r[c]:.6g}"
        r["note"] = one_line(r["note"])
        self.w.writerow(r)
        self.f.flush()
        print(f"  {r['impl']:14s} {r['shape']:>8s} {r['data']:10s} {r['precision']:7s} "
              f"{r['direction']:10s} median {r['median_ms'] or '-':>10s} ms  "
              f"reps {r['reps'] or '-':>3}  {r['note']}", flush=True)

    def close(self):
        self.f.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="CSV file to write")
    ap.add_argument("--direction", default="decreasing", choices=["decreasing", "increasing"],
                    help="direction of the fits (default: decreasing, as in the paper's Table 1)")
    ap.add_argument("--impls", default="torchisotonic,torchsort")
    ap.add_argument("--shapes", default=DEFAULT_SHAPES,
                    help=f"rows x n, comma-separated (default {DEFAULT_SHAPES})")
    ap.add_argument("--data", default="noisy,increasing")
    ap.add_argument("--precision", default="float32,float64")
    ap.add_argument("--reps", type=int, default=10, help="timed calls of a cell (>= 10)")
    ap.add_argument("--reps-fast", type=int, default=30,
                    help="timed calls of a cell whose call takes < 10 ms")
    ap.add_argument("--slow-call-s", type=float, default=1.0,
                    help="a call slower than this is timed twice only")
    ap.add_argument("--max-call-s", type=float, default=10.0,
                    help="skip a cell whose one call is estimated to take longer")
    ap.add_argument("--budget-s", type=float, default=0.0,
                    help="start no new cell after this many seconds (0: no limit)")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--check-max", type=float, default=1e5,
                    help="compare with sklearn on cells of at most this many elements")
    args = ap.parse_args(argv)

    t_start = time.monotonic()
    shapes = parse_shapes(args.shapes)
    datas = [d.strip() for d in args.data.split(",") if d.strip()]
    precs = [p.strip() for p in args.precision.split(",") if p.strip()]
    impls = [i.strip() for i in args.impls.split(",") if i.strip()]
    decreasing = args.direction == "decreasing"
    out = Writer(args.out)

    def all_cells_note(impl, note):
        for rows, n in shapes:
            for d in datas:
                for p in precs:
                    out.row(impl=impl, shape=f"{label(rows)}x{label(n)}", rows=rows, n=n,
                            data=d, precision=p, direction=args.direction, note=note)

    # ---- torch and the device -------------------------------------------------------------
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        msg = f"torch not importable: {type(e).__name__}: {e}"
        print(msg, file=sys.stderr)
        for impl in impls:
            all_cells_note(impl, msg)
        out.close()
        return 0
    if not torch.cuda.is_available():
        msg = "no CUDA device visible to torch"
        print(msg, file=sys.stderr)
        for impl in impls:
            all_cells_note(impl, msg)
        out.close()
        return 0

    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"device {torch.cuda.get_device_name(0)}", flush=True)
    dtypes = {"float32": torch.float32, "float64": torch.float64}

    try:
        import numpy as np
        from sklearn.isotonic import isotonic_regression as sk_iso
    except Exception:  # noqa: BLE001
        np = None
        sk_iso = None

    def pkg_version(name):
        try:
            from importlib.metadata import version
            return version(name)
        except Exception:  # noqa: BLE001
            return "?"

    # ---- the solvers: name -> (callable on prepared input, prepare, unprepare) or error ----
    solvers: dict[str, object] = {}
    for impl in impls:
        try:
            if impl == "torchisotonic":
                import torchisotonic

                inc = not decreasing

                def f_ti(y, _inc=inc, _ti=torchisotonic):
                    return _ti.isotonic(y, increasing=_inc)

                solvers[impl] = (f_ti, lambda y: y, lambda fit: fit)
                print(f"torchisotonic {getattr(torchisotonic, '__version__', '?')}: "
                      f"torchisotonic.isotonic(y, increasing={inc}) [exact=True]", flush=True)
            elif impl == "torchsort":
                import torchsort  # noqa: F401  (loads torchsort.isotonic_cpu too)
                from torchsort import isotonic_cuda as ts_cuda

                # isotonic_l2 solves the DECREASING problem; increasing = -f(-y).
                if decreasing:
                    solvers[impl] = (ts_cuda.isotonic_l2, lambda y: y, lambda fit: fit)
                else:
                    solvers[impl] = (ts_cuda.isotonic_l2, lambda y: -y, lambda fit: -fit)
                print(f"torchsort {pkg_version('torchsort')}: torchsort.isotonic_cuda."
                      f"isotonic_l2(y{'' if decreasing else ' = -data'}) "
                      f"[decreasing solver, one thread per row]", flush=True)
            else:
                raise ValueError(f"unknown impl {impl!r}")
        except Exception as e:  # noqa: BLE001
            solvers[impl] = f"{impl} not available: {type(e).__name__}: {e}"
            print(solvers[impl], flush=True)
            traceback.print_exc()

    # ---- global warm-up per solver and dtype (module load, JIT build) --------------------
    for impl in impls:
        s = solvers[impl]
        if isinstance(s, str):
            continue
        f, prep, _ = s
        for p in precs:
            try:
                y = torch.randn(4, 256, device=dev, dtype=dtypes[p])
                with torch.no_grad():
                    f(prep(y))
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                solvers[impl] = f"{impl} warm-up failed: {type(e).__name__}: {e}"
                print(solvers[impl], flush=True)
                traceback.print_exc()
                break
    print(f"[{time.monotonic() - t_start:.1f} s] warm-up done", flush=True)

    # ---- data ---------------------------------------------------------------------------
    gen = torch.Generator(device=dev)

    def make_data(rows, n, data, dtype):
        gen.manual_seed(args.seed + rows * 7 + n)
        ramp = torch.linspace(0.0, 3.0, n, dtype=torch.float64, device=dev)
        if data == "noisy":
            y = torch.randn(rows, n, dtype=torch.float64, device=dev, generator=gen)
            y += ramp
        elif data == "increasing":
            y = ramp.expand(rows, n).clone()
        else:
            raise ValueError(f"unknown data {data!r}")
        return y if dtype == torch.float64 else y.to(dtype)

    # ---- timing ---------------------------------------------------------------------------
    start_ev = torch.cuda.Event(enable_timing=True)
    end_ev = torch.cuda.Event(enable_timing=True)

    def timed_call(f, x):
        start_ev.record()
        fit = f(x)
        end_ev.record()
        end_ev.synchronize()
        return start_ev.elapsed_time(end_ev), fit

    def measure(f, x):
        """Returns (times in ms, the last fit). The first call is a timed probe: discarded as
        the warm-up when it is fast; when it takes > --slow-call-s it is kept (the solver was
        warmed up on a small input before all cells) and one more call is timed."""
        probe, fit = timed_call(f, x)
        if probe > args.slow_call_s * 1e3:
            # slow: the solver is warm (global warm-up), the probe counts; one more call
            times = [probe]
            if probe <= args.max_call_s * 1e3:
                del fit
                t, fit = timed_call(f, x)
                times.append(t)
            return times, fit
        reps = args.reps_fast if probe < 10.0 else args.reps
        reps = max(reps, 10)
        times = []
        for _ in range(reps):
            del fit
            t, fit = timed_call(f, x)
            times.append(t)
        return times, fit

    def checks(y, fit, rows, n):
        notes = []
        yd = y.double()
        fd = fit.double()
        if n > 1:
            d = fd[:, 1:] - fd[:, :-1]
            viol = (d.max() if decreasing else (-d).max()).item()
            del d
            viol = viol if viol > 0 else 0.0
            scale = (yd.max() - yd.min()).item() or 1.0
            notes.append(f"monotone viol {viol:.2g}")
            if viol > 1e-3 * scale:
                notes.append(f"WARNING: not {args.direction} (viol {viol:.3g}, scale {scale:.3g})")
        serr = ((fd.sum(1) - yd.sum(1)).abs() / n).max().item()
        notes.append(f"row-mean err {serr:.2g}")
        if serr > 1e-3 * max(1.0, yd.abs().max().item()):
            notes.append("WARNING: row sums not preserved: not an L2 isotonic fit?")
        if sk_iso is not None and rows * n <= args.check_max:
            yc = yd.cpu().numpy()
            ref = np.stack([sk_iso(r, increasing=not decreasing) for r in yc])
            diff = float(np.max(np.abs(fd.cpu().numpy() - ref)))
            notes.append(f"max|diff| vs sklearn {diff:.2g}")
        return notes

    # ---- cells ----------------------------------------------------------------------------
    for impl in impls:
        s = solvers[impl]
        if isinstance(s, str):
            all_cells_note(impl, s)
            continue
        f, prep, unprep = s
        order = shapes
        if impl == "torchsort":
            # slowest (longest rows) last, so that a timeout loses the fewest cells
            order = sorted(shapes, key=lambda rn: rn[1])
        for rows, n in order:
            shape = f"{label(rows)}x{label(n)}"
            for data in datas:
                for p in precs:
                    base = dict(impl=impl, shape=shape, rows=rows, n=n, data=data, precision=p,
                                direction=args.direction)
                    elapsed = time.monotonic() - t_start
                    if args.budget_s > 0 and elapsed > args.budget_s:
                        out.row(**base, note=f"skipped: time budget ({args.budget_s:.0f} s) spent")
                        continue
                    if impl == "torchsort":
                        est = TORCHSORT_S_PER_ELEMENT * n * max(1.0, rows / (132 * 2048))
                        if est > args.max_call_s:
                            why = (f"skipped: one call est. {est:.0f} s (one thread per row, "
                                   f"~{TORCHSORT_S_PER_ELEMENT * 1e9:.0f} ns/element)")
                            if p == "float32" and n > 2 ** 24:
                                why += "; float32 block bounds inexact above 2^24"
                            out.row(**base, note=why)
                            continue
                    y = x = fit = None
                    try:
                        y = make_data(rows, n, data, dtypes[p])
                        x = prep(y)
                        with torch.no_grad():
                            # measure()'s first call is this cell's warm-up (or, for a slow
                            # cell, its first timed call)
                            torch.cuda.synchronize()
                            base_mem = torch.cuda.memory_allocated()
                            torch.cuda.reset_peak_memory_stats()
                            times, fit = measure(f, x)
                            peak = torch.cuda.max_memory_allocated() - base_mem
                            fit = unprep(fit)
                            notes = [f"peak +{peak / 2**20:.0f} MiB"]
                            try:
                                notes += checks(y, fit, rows, n)
                            except Exception as e:  # noqa: BLE001
                                notes.append(f"checks failed: {type(e).__name__}")
                        if len(times) < 10:
                            notes.insert(0, f"slow: {len(times)} calls")
                        med, q1, q3 = quartiles(times)
                        out.row(**base, median_ms=med, q1_ms=q1, q3_ms=q3, reps=len(times),
                                note="; ".join(notes))
                    except Exception as e:  # noqa: BLE001  (OOM included)
                        kind = "OOM" if "out of memory" in str(e).lower() else "error"
                        out.row(**base, note=f"{kind}: {type(e).__name__}: {e}")
                    finally:
                        del y, x, fit
                        try:
                            torch.cuda.synchronize()
                            torch.cuda.empty_cache()
                        except Exception:  # noqa: BLE001
                            pass
    print(f"[{time.monotonic() - t_start:.1f} s] done", flush=True)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
