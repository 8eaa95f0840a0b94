#!/usr/bin/env bash
# bench/gpu/poset-exact.cu on the device: every input file given (from
# poset-exact-data.R), every layout (POSET_LAYOUT: contiguous, interleaved,
# shared or both, the default, which runs all three), its log under $OUT.
#     bash bench/gpu/poset-exact.sh [BLOCK] FILE...
set -u
OUTDIR=${OUT:-/tmp}/poset-exact
mkdir -p "$OUTDIR"
nvcc -O3 -arch=sm_90 -o "$OUTDIR/poset-exact" bench/gpu/poset-exact.cu || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUTDIR/env.txt"
block=32
case "${1:-}" in [0-9]*) block=$1; shift ;; esac
for f in "$@"; do
  b=$(basename "$f" .bin)
  timeout 300 "$OUTDIR/poset-exact" "$f" "${POSET_LAYOUT:-both}" "$block" > "$OUTDIR/$b.log" 2>&1
  echo "== $b (rc $?)"; cat "$OUTDIR/$b.log"
done
rm -f "$OUTDIR/poset-exact"
