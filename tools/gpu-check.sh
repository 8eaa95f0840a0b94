#!/usr/bin/env bash
# The GPU checks, for the device machine (see ../shared/gpu/README.md).
# Here, once: build the package for sm_90 into .gpu/lib, from a copy of the
# tree so that no build products land in src/:
#     rm -rf /tmp/gpubuild && mkdir -p /tmp/gpubuild &&
#     tar --exclude=.git --exclude=.gpu -cf - . | tar -x -C /tmp/gpubuild &&
#     (cd /tmp/gpubuild && ./cleanup && rm -rf "$OLDPWD/.gpu/lib" && mkdir -p "$OLDPWD/.gpu/lib" &&
#      GPUISO_CUDA_ARCH=90 R CMD INSTALL -l "$OLDPWD/.gpu/lib" .)
# Then one device call with carry [".gpu"]:  bash tools/gpu-check.sh
# It runs the test suite (CRAN mode), test-gpu.R with its 1e7 block, an
# independent GPU-against-CPU sweep with kernel timings, and the crossover
# of device = "auto" (into $OUT). About 5 minutes on an H200.
# shellcheck source=/dev/null # written on the device machine
. .gpu/r-env.sh
export R_LIBS="$PWD/.gpu/lib"
OUT=${OUT:-/tmp/gpuiso-check}
mkdir -p "$OUT"
# shellcheck disable=SC2016 # R code, for R to expand
summary='df <- as.data.frame(res); cat("RESULT", sum(df$passed), "passed", sum(df$failed), "failed", sum(df$skipped), "skipped\n"); print(df[df$failed > 0 | df$error, c("file", "test")])'
(cd tests && timeout 200 Rscript -e "library(testthat); library(gpuiso); print(gpu_info()); res <- test_dir('testthat', reporter = 'summary', stop_on_failure = FALSE); $summary") 2>&1 | tail -25
(cd tests && NOT_CRAN=true timeout 250 Rscript -e "library(testthat); library(gpuiso); res <- test_file('testthat/test-gpu.R', reporter = 'summary'); $summary") 2>&1 | tail -12
timeout 120 Rscript tools/gpu-sweep.R 2>&1 | tail -30
timeout 120 Rscript bench/gpu/crossover.R "$R_LIBS" "$OUT/crossover.csv" 2>&1 | tail -40
