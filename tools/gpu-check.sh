#!/usr/bin/env bash
# The GPU checks, for the device machine (see ../shared/gpu/README.md).
# Here, once: build the package for sm_90 into .gpu/lib, from a copy of the
# tree so that no build products land in src/:
#     rm -rf /tmp/gpubuild && mkdir -p /tmp/gpubuild &&
#     tar --exclude=.git --exclude=.gpu -cf - . | tar -x -C /tmp/gpubuild &&
#     (cd /tmp/gpubuild && ./cleanup && rm -rf "$OLDPWD/.gpu/lib" && mkdir -p "$OLDPWD/.gpu/lib" &&
#      GPUISO_CUDA_ARCH=90 R CMD INSTALL -l "$OLDPWD/.gpu/lib" .)
# Then one device call with carry [".gpu"]:  bash tools/gpu-check.sh
# (or, with the comparison packages, carry [".gpu/libs.tar.xz",
# ".gpu/r-bundle.tar.xz", ".gpu/r-env.sh"]; see below).
# The device's R has no gmp, Iso, quadprog, fdrtool or ggplot2, so the tests
# that compare with them skip there unless they travel too. Unpacked, they
# and ggplot2's dependencies (gtable, isoband, MASS, mgcv, scales, nlme,
# Matrix, farver, labeling, munsell, RColorBrewer, viridisLite, lattice,
# colorspace) with .gpu/lib and the R bundle exceed the 64 MiB carry limit;
# copy them and gpuiso from .gpu/lib into one folder, drop each package's
# doc/, html/, help/, po/, tests/, examples/ and include/, and pack it as
# .gpu/libs.tar.xz (XZ_OPT=-9e: 14 MB). Carry that instead of .gpu/lib;
# this script unpacks it into .gpu/lib.
# It runs every test file (or those in $FILES; CRAN mode, NOT_CRAN=true for
# those in $NOT_CRAN_FILES), JOBS files at a time, each in its own R process
# with a log under $OUT/tests, and prints one line per file and each
# failure. GPUISO_TEST_LONG=true adds the test of a vector past 2^31
# elements (about 40 GB of host memory).
# GPUISO_EXACT_DEVICE=gpu sends the exact differential test to the GPU.
# shellcheck source=/dev/null # written on the device machine
. .gpu/r-env.sh
# a packed library replaces .gpu/lib, which a warm machine may keep from an
# earlier call
if [ -f .gpu/libs.tar.xz ]; then
  rm -rf .gpu/lib && mkdir -p .gpu/lib && tar -xJf .gpu/libs.tar.xz -C .gpu/lib
fi
export R_LIBS="$PWD/.gpu/lib"
OUT=${OUT:-/tmp/gpuiso-check}
JOBS=${JOBS:-6}
# test-exact.R at full size holds the GPU engine to exact arithmetic (it
# skips without gmp); its 5,000 random gradient problems found the bug of
# NEWS's 2026-12-07 entry
NOT_CRAN_FILES=${NOT_CRAN_FILES:-"test-gpu.R test-gpu-transfer.R test-exact.R"}
export GPUISO_EXACT_DEVICE=${GPUISO_EXACT_DEVICE:-gpu}
mkdir -p "$OUT/tests"
run_one() {
  f=$1
  case " $NOT_CRAN_FILES " in *" $f "*) nc=true ;; *) nc=false ;; esac
  # shellcheck disable=SC2016 # R code, for R to expand
  (cd tests/testthat && NOT_CRAN=$nc timeout "${FILE_TIMEOUT:-420}" Rscript -e '
    suppressMessages({library(testthat); library(gpuiso)})
    for (h in c("setup.R", list.files(pattern = "^helper-"))) source(h)
    f <- commandArgs(TRUE)[1]
    t0 <- proc.time()[["elapsed"]]
    res <- test_file(f, package = "gpuiso", load_package = "installed",
                     reporter = "silent", stop_on_failure = FALSE)
    r <- as.data.frame(res)
    cat(sprintf("RESULT %-28s %6d passed %4d failed %3d skipped %5.0f s\n", f, sum(r$passed),
                sum(r$failed), sum(r$skipped), proc.time()[["elapsed"]] - t0))
    for (t in res) for (e in t$results) {
      if (inherits(e, c("expectation_failure", "expectation_error"))) {
        cat("FAILED", f, t$test, ":", substr(conditionMessage(e), 1, 300), "\n")
      }
    }
  ' "$f") > "$OUT/tests/$f.log" 2>&1
  grep -h '^RESULT\|^FAILED' "$OUT/tests/$f.log" || echo "RESULT $f: no result (see its log)"
}
export -f run_one
export OUT NOT_CRAN_FILES
Rscript -e 'library(gpuiso); print(gpu_info())'
# the longest files first (or those named in $FILES), JOBS at a time; then,
# one by one, those of $SOLO_FILES, which measure the whole device's memory
# (another file's workspace, running beside them, would count as theirs)
SOLO_FILES=${SOLO_FILES:-"test-gpu-transfer.R"}
par="" solo=""
# shellcheck disable=SC2086 # a list of files, or a pattern, to expand
for f in $(cd tests/testthat && ls -S ${FILES:-test-*.R}); do
  case " $SOLO_FILES " in *" $f "*) solo="$solo $f" ;; *) par="$par $f" ;; esac
done
# shellcheck disable=SC2086 # lists of file names
[ -z "$par" ] || printf '%s\n' $par | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
for f in $solo; do run_one "$f"; done
