"""Join the CSVs of kernels.R and kernels_peers.py into a markdown table.

Usage: python3 bench/gpu/kernels_table.py gpuiso.csv peers.csv > table.md

One row per shape x data x weighting. Forward columns: gpuiso's and
torchisotonic's median kernel time in ms for float32 and float64 and gpuiso's
time over theirs (a check mark where it is at most 0.8, the target of issue
13). Backward columns: gpuiso's backward pass (double for both precisions),
torchisotonic's backward in float32 and float64, and gpuiso's time over the
faster of the two. Standard library only.
"""
import csv
import sys


def load(path):
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["impl"], r["pass"], r["shape"], r["data"], r["weights"], r["precision"])
            out[key] = float(r["median_ms"])
    return out


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.3f}" if v < 10 else f"{v:.2f}"


def ratio(a, b, target=None):
    if a is None or b is None or b <= 0:
        return "—"
    x = a / b
    mark = " ✓" if target is not None and x <= target else ""
    return f"{x:.2f}{mark}"


def main():
    t = load(sys.argv[1])
    t.update(load(sys.argv[2]))
    shapes = []
    for k in t:
        if k[2] not in shapes:
            shapes.append(k[2])
    print("| rows × n | data | weights | gpuiso f32 | ti f32 | ratio | gpuiso f64 | ti f64 | ratio "
          "| gpuiso bwd | ti bwd f32 | ti bwd f64 | ratio |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    met = total = 0
    for sh in shapes:
        for data in ["noisy", "increasing"]:
            for wt in ["none", "weighted"]:
                g = lambda p, prec: t.get(("gpuiso", p, sh, data, wt, prec))
                ti = lambda p, prec: t.get(("torchisotonic", p, sh, data, wt, prec))
                cells = [sh.replace("x", " × "), data, wt]
                for prec in ["float32", "float64"]:
                    a, b = g("forward", prec), ti("forward", prec)
                    cells += [fmt(a), fmt(b), ratio(a, b, 0.8)]
                    if a is not None and b is not None:
                        total += 1
                        met += a / b <= 0.8
                gb = g("backward", "float64")
                t32, t64 = ti("backward", "float32"), ti("backward", "float64")
                best = min([v for v in (t32, t64) if v is not None], default=None)
                cells += [fmt(gb), fmt(t32), fmt(t64), ratio(gb, best, 1.0)]
                print("| " + " | ".join(cells) + " |")
    print()
    print(f"Forward cells at most 0.8 of torchisotonic's time: {met} of {total}.")


if __name__ == "__main__":
    main()
