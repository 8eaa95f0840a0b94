#!/usr/bin/env bash
# Build the kernel harness against a source tree, for sm_90:
#     bash tools/gpu-harness/build.sh OUT [nvcc flags, e.g. -DGI_PROFILE]
# from the repository root. Needs nvcc and gcc with OpenMP; no R.
set -e
OUT=$1
shift
SRC=$(pwd)
HERE=$SRC/tools/gpu-harness
T=$(mktemp -d)
for f in workspace plan status entry bench chunk merge transfer vjp; do
  nvcc -arch=sm_90 -O3 "$@" -I"$SRC/src" -c "$SRC/src/cuda/$f.cu" -o "$T/$f.o" &
done
for f in copy memory threads; do
  gcc -O2 -fopenmp -I"$SRC/src" -c "$SRC/src/core/$f.c" -o "$T/$f.o" &
done
nvcc -arch=sm_90 -O3 "$@" -c "$HERE/harness.cu" -o "$T/harness.o" &
wait
nvcc -arch=sm_90 -o "$OUT" "$T"/*.o -Xcompiler -fopenmp -lcudart
rm -rf "$T"
