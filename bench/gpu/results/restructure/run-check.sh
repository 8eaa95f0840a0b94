#!/usr/bin/env bash
# one device call: harness timings of each binary in .gpu/h, the GPU sweep, the whole test suite
set -u
mkdir -p "$OUT"
for h in .gpu/h/*; do
  echo "== harness $h"
  for shape in "100 1e3 noisy -" "1e4 1e3 noisy -" "1e4 1e3 increasing -" "1e6 16 noisy -" "1 1e6 noisy -" "1 1e7 noisy -" "1 1e8 noisy -" "1 1e8 noisy w"; do
    echo "-- $shape"; timeout 30 "$h" $shape 20 2>&1 | tail -4
  done
done > "$OUT/harness.txt" 2>&1
cat "$OUT/harness.txt"
. .gpu/r-env.sh
R_LIBS="$PWD/.gpu/lib" timeout 150 Rscript tools/gpu-sweep.R > "$OUT/sweep.txt" 2>&1; tail -15 "$OUT/sweep.txt"
FILE_TIMEOUT=300 JOBS=8 timeout 330 bash tools/gpu-check.sh 2>&1 | tee "$OUT/check.txt"
tar -C "$OUT" -czf "$OUT/tests.tgz" tests && rm -rf "$OUT/tests"
