#!/usr/bin/env bash
# gpuiso's kernels against torchisotonic, forward and backward, in one device call
# (device tool: carry [".gpu"], timeout_s 600), from the repository root:
#
#     bash bench/gpu/kernels.sh
#
# Needs .gpu/r-env.sh (../shared/gpu/make-r-bundle.sh .gpu), the torchisotonic wheel in
# .gpu/peers/ and gpuiso built for sm_90 in $GPUISO_LIB (default .gpu/lib; see
# tools/gpu-check.sh). Writes $OUT/kernels/{gpuiso.csv,peers.csv,table.md,env.txt}.
set -u
OUTDIR=${OUT:-/tmp/gpuiso-bench}/kernels
mkdir -p "$OUTDIR"
. .gpu/r-env.sh
LIB=${GPUISO_LIB:-.gpu/lib}
whl=$(ls .gpu/peers/torchisotonic-*.whl | head -1)
( timeout 100 python3 -m pip install -q --no-deps --no-index --no-build-isolation "$whl" &&
  timeout 240 python3 -c 'import torchisotonic._ext as e; e._load()' ) > /tmp/ti-build.log 2>&1 &
build=$!
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: ${GPUISO_BENCH_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /'
  echo "nvcc: $(nvcc --version | grep -o 'release [0-9.]*' | head -1)"
} > "$OUTDIR/env.txt"
timeout 300 Rscript bench/gpu/kernels.R "$LIB" "$OUTDIR/gpuiso.csv"
wait $build || { echo "torchisotonic build failed"; tail -20 /tmp/ti-build.log; }
python3 bench/gpu/peer_versions.py >> "$OUTDIR/env.txt"
timeout 240 python3 bench/gpu/kernels_peers.py "$OUTDIR/peers.csv"
python3 bench/gpu/kernels_table.py "$OUTDIR/gpuiso.csv" "$OUTDIR/peers.csv" > "$OUTDIR/table.md"
cat "$OUTDIR/env.txt" "$OUTDIR/table.md"
