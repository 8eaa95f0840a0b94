#!/usr/bin/env python3
"""Joins e2e.csv (bench/gpu/e2e.R) and e2e-peers.csv (e2e.py) into one
markdown table: milliseconds from host data to host data, medians.

    python3 bench/gpu/e2e_table.py e2e.csv e2e-peers.csv > table.md
"""

import csv
import sys

SHAPES = [("1x1e5", "1 x 1e5"), ("1x1e6", "1 x 1e6"), ("1x1e7", "1 x 1e7"),
          ("1x1e8", "1 x 1e8"), ("1e4x1e3", "10,000 x 1,000"),
          ("1e3x1e4", "1,000 x 10,000"), ("1e6x16", "1e6 x 16")]


def key(shape: str) -> str:
    r, n = shape.split("x")
    return f"{float(r):g}x{float(n):g}"


def main() -> None:
    ours = list(csv.DictReader(open(sys.argv[1])))
    peers = list(csv.DictReader(open(sys.argv[2])))
    cell = {}
    for r in ours:
        cell[(key(r["shape"]), r["engine"], r["precision"])] = r
    for r in peers:
        if "x" in r["shape"]:
            cell[(key(r["shape"]), r["impl"], r["precision"])] = r
    cpu = sorted({r["engine"] for r in ours if r["engine"].startswith("gpuiso cpu")},
                 key=lambda e: int(e.split()[2]))
    head = ["rows x n", "R `y + 0`"]
    for p in ("double", "single"):
        head += [f"gpuiso GPU {p}", f"torchisotonic {p}"]
    head += ["single / double"] + [c.replace("gpuiso ", "") for c in cpu]
    head += ["stages, double (in / device / prefault / out)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))

    def ms(k):
        r = cell.get(k)
        return float(r["median_ms"]) if r and r["median_ms"] not in ("", "NA") else None

    def fmt(v):
        return "" if v is None else (f"{v:.3g}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:.0f}")

    for s, label in SHAPES:
        k = key(s)
        row = [label, fmt(ms((k, "R y + 0", "double")))]
        for p in ("double", "single"):
            row += [fmt(ms((k, "gpuiso gpu", p))), fmt(ms((k, "torchisotonic from NumPy", p)))]
        d, g = ms((k, "gpuiso gpu", "double")), ms((k, "gpuiso gpu", "single"))
        row += [f"{g / d:.2f}" if d and g else ""]
        row += [fmt(ms((k, c, "double"))) for c in cpu]
        r = cell.get((k, "gpuiso gpu", "double"))
        row += [" / ".join(f"{float(r[c]):.1f}" for c in ("copy_in", "device", "prefault", "copy_out"))
                if r else ""]
        print("| " + " | ".join(row) + " |")
    for r in peers:
        if r["impl"].startswith("pinned"):
            print(f"\n{r['impl']} (800 MB, CUDA events): {float(r['median_ms']):.1f} ms, {r['note']}")


if __name__ == "__main__":
    main()
