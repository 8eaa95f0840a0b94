#!/usr/bin/env bash
# bench/gpu/poset-fo.cu on the device: every input file given, its log under $OUT.
#     bash bench/gpu/poset-fo.sh MAX_IT CHECK_EVERY FILE...
set -u
OUTDIR=${OUT:-/tmp}/poset-fo
mkdir -p "$OUTDIR"
nvcc -O3 -arch=sm_90 -o "$OUTDIR/poset-fo" bench/gpu/poset-fo.cu || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUTDIR/env.txt"
max_it=$1; every=$2; shift 2
for f in "$@"; do
  b=$(basename "$f" .bin)
  timeout 100 "$OUTDIR/poset-fo" "$f" "$max_it" "$every" > "$OUTDIR/$b.log" 2>&1
  echo "== $b (rc $?)"; grep -v " it " "$OUTDIR/$b.log"
done
rm -f "$OUTDIR/poset-fo"
