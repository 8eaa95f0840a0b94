#!/usr/bin/env bash
. .gpu/r-env.sh
mkdir -p "$OUT"
timeout 100 Rscript bench/gpu/crossover.R "$PWD/.gpu/lib" "$OUT/crossover.csv" > "$OUT/log.txt" 2>&1
timeout 40 Rscript bench/gpu/e2e.R "$PWD/.gpu/lib" "$OUT/e2e-small.csv" 1x1e6,1e4x1e3 >> "$OUT/log.txt" 2>&1
cat "$OUT/log.txt"
