#!/usr/bin/env python3
"""Join the CSVs of bench/gpu/gpuiso.R and bench/gpu/peers.py into a markdown table.

Usage: python3 bench/gpu/table.py gpuiso.csv peers.csv [--env env.txt] > table.md

Rows: shape x data x precision (x direction when the CSVs hold more than one). Columns: the
median time in ms of gpuiso's kernel, torchisotonic, torchsort (kernel times, data on the
GPU, CUDA events), gpuiso from R and gpuiso's CPU engine (wall clock from R, host data), and
the speed-ups of gpuiso's kernel over torchsort and torchisotonic (their median / ours).
A cell from fewer than 10 calls shows the count in parentheses; skipped cells show "—",
failed ones "error", with the reason below the table, which also lists kernel cells whose
interquartile range exceeds 15% of the median and any sanity-check WARNING. Standard library
only.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import OrderedDict

SHAPE_ORDER = [(100, 1000), (10**6, 16), (10**4, 1000), (1000, 10**4), (1, 10**6), (1, 10**7),
               (1, 10**8)]
DATA_ORDER = ["noisy", "increasing"]
PREC_ORDER = ["float32", "float64"]
DIR_ORDER = ["decreasing", "increasing"]

KERNEL = "gpuiso kernel"
FROM_R = "gpuiso from R"
TI = "torchisotonic"
TS = "torchsort"


def fmt_ms(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}×"
    if x >= 10:
        return f"{x:.0f}×"
    return f"{x:.1f}×"


def shape_label(rows: int, n: int) -> str:
    def lab(x):
        if x >= 1000:
            m, e = f"{x:.0e}".split("e")  # 1000000 -> '1', '+06'
            if int(m) * 10 ** int(e) == x:
                return f"{m}e{int(e)}"
        return str(x)
    return f"{lab(rows)} × {lab(n)}"


def order_key(key):
    rows, n, data, prec, direction = key
    def idx(lst, v):
        return lst.index(v) if v in lst else len(lst)
    shape_i = SHAPE_ORDER.index((rows, n)) if (rows, n) in SHAPE_ORDER else len(SHAPE_ORDER)
    return (idx(DIR_ORDER, direction), shape_i, rows * n, rows, idx(DATA_ORDER, data), data,
            idx(PREC_ORDER, prec), prec)


def to_float(s):
    try:
        v = float(s)
        return v if v == v else None
    except (TypeError, ValueError):
        return None


def read_rows(paths):
    rows = []
    for p in paths:
        try:
            with open(p, newline="") as f:
                for r in csv.DictReader(f):
                    rows.append(r)
        except FileNotFoundError:
            print(f"table.py: {p} not found, left out", file=sys.stderr)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Join the GPU benchmark CSVs into markdown.")
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--env", help="a text file describing the machine, shown above the table")
    ap.add_argument("--title", default="GPU benchmark")
    args = ap.parse_args(argv)

    raw = read_rows(args.csv)
    cells = {}          # key -> impl -> row
    impls_seen = OrderedDict()
    for r in raw:
        try:
            key = (int(float(r["rows"])), int(float(r["n"])), r["data"], r["precision"],
                   r["direction"])
        except (KeyError, ValueError):
            continue
        impl = r["impl"]
        impls_seen[impl] = True
        cells.setdefault(key, {})[impl] = r

    cpu_impls = [i for i in impls_seen if i.startswith("gpuiso cpu")]
    cpu = cpu_impls[0] if cpu_impls else "gpuiso cpu"
    columns = [KERNEL, TI, TS, FROM_R, cpu]
    headers = {KERNEL: "gpuiso kernel", TI: "torchisotonic", TS: "torchsort",
               FROM_R: "gpuiso from R", cpu: cpu}
    directions = sorted({k[4] for k in cells}, key=lambda d: DIR_ORDER.index(d)
                        if d in DIR_ORDER else 9)

    notes = []      # (marker, text)
    note_ids = {}

    def footnote(text):
        if text not in note_ids:
            note_ids[text] = len(note_ids) + 1
            notes.append((note_ids[text], text))
        return f"<sup>{note_ids[text]}</sup>"

    def cell_text(r, where, kernel):
        if r is None:
            return "", None
        med = to_float(r.get("median_ms"))
        note = (r.get("note") or "").strip()
        if med is None:
            # one footnote per solver and reason, however many cells it covers
            impl = where.split(",")[0]
            if note.lower().startswith("skipped"):
                return "—" + footnote(f"{impl}: {note}"), None
            return "error" + footnote(f"{impl}: {note or 'no time recorded'}"), None
        txt = fmt_ms(med)
        reps = to_float(r.get("reps"))
        if reps is not None and reps < 10:
            txt += f" ({int(reps)})"
        q1, q3 = to_float(r.get("q1_ms")), to_float(r.get("q3_ms"))
        if "WARNING" in note:
            txt += footnote(f"{where}: {note}")
        elif (kernel and q1 is not None and q3 is not None and med > 0
              and (q3 - q1) / med > 0.15):
            txt += footnote(f"{where}: interquartile range {fmt_ms(q1)}–{fmt_ms(q3)} ms")
        return txt, med

    out = []
    out.append(f"## {args.title}")
    out.append("")
    if args.env:
        try:
            with open(args.env) as f:
                env = f.read().strip()
            out.append("```")
            out.append(env)
            out.append("```")
            out.append("")
        except OSError:
            pass
    out.append(
        "Milliseconds, median. **Kernel** columns (gpuiso kernel, torchisotonic, torchsort): "
        "data resident on the GPU, each call timed with a pair of CUDA events after a warm-up "
        "call, median of 10 to 30 calls (a count in parentheses: fewer calls, for slow cells). "
        "**From R** columns: wall clock around `gpuiso::isotonic()` on an R matrix (one problem "
        "per column), host↔device copies and the allocation of the result included. "
        "Speed-up = the peer's median / gpuiso kernel's median. "
        "Data: *noisy* = ramp 0..3 plus N(0, 1) noise per row; *increasing* = the ramp alone.")
    out.append("")
    for direction in directions:
        out.append(f"### {direction.capitalize()} unweighted fits")
        out.append("")
        head = ["rows × n", "data", "precision"] + [headers[c] for c in columns] + \
               ["vs torchsort", "vs torchisotonic"]
        out.append("| " + " | ".join(head) + " |")
        out.append("| --- | --- | --- | " + " | ".join(["---:"] * (len(columns) + 2)) + " |")
        keys = sorted((k for k in cells if k[4] == direction), key=order_key)
        for key in keys:
            rows, n, data, prec, _ = key
            by = cells[key]
            texts, meds = [], {}
            for c in columns:
                where = f"{headers[c]}, {rows}×{n} {data} {prec}"
                t, m = cell_text(by.get(c), where, c in (KERNEL, TI, TS))
                texts.append(t)
                meds[c] = m
            k = meds.get(KERNEL)
            ratios = []
            for peer in (TS, TI):
                m = meds.get(peer)
                ratios.append(fmt_ratio(m / k) if (m is not None and k) else "")
            out.append("| " + " | ".join([shape_label(rows, n), data, prec] + texts + ratios)
                       + " |")
        out.append("")
    if notes:
        out.append("Notes:")
        out.append("")
        for i, text in notes:
            out.append(f"{i}. {text}")
        out.append("")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
