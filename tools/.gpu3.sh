#!/usr/bin/env bash
. .gpu/r-env.sh
export R_LIBS=$PWD/.gpu/lib
mkdir -p "$OUT"
L="$OUT/log.txt"
{
echo "== tests"
OUT=/tmp/chk FILE_TIMEOUT=300 JOBS=6 NOT_CRAN_FILES="test-gpu-transfer.R" timeout 330 bash tools/gpu-check.sh 2>&1 | grep "RESULT\|FAILED"
for f in /tmp/chk/tests/*.log; do if grep -q "^FAILED" "$f"; then echo "---- $f"; grep -B2 -A12 "Failure\|Error" "$f" | head -60; fi; done
echo "== long vector"
(cd tests/testthat && GPUISO_TEST_LONG=true timeout 150 Rscript -e '
  suppressMessages({library(testthat); library(gpuiso)})
  for (h in c("setup.R", list.files(pattern = "^helper-"))) source(h)
  r <- test_file("test-gpu-transfer.R", package = "gpuiso", load_package = "installed", reporter = "summary", filter = NULL)
  d <- as.data.frame(r); print(d[grepl("2\\\\^31", d$test), c("test", "passed", "failed", "skipped", "real")])')
echo "== e2e"; timeout 100 Rscript bench/gpu/e2e.R .gpu/lib "$OUT/e2e.csv" 1x1e6,1x1e7,1x1e8,1e4x1e3
} >> "$L" 2>&1
cat "$L"
