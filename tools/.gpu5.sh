#!/usr/bin/env bash
. .gpu/r-env.sh
mkdir -p "$OUT"
{
echo "== tests"
OUT=/tmp/chk FILE_TIMEOUT=300 JOBS=6 NOT_CRAN_FILES="test-gpu-transfer.R" GPUISO_TEST_LONG=true timeout 330 bash tools/gpu-check.sh 2>&1 | grep "RESULT\|FAILED"
} > "$OUT/tests.txt" 2>&1
cat "$OUT/tests.txt"
GPUISO_BENCH_COMMIT=$(cat tools/.commit) bash bench/gpu/e2e.sh > /dev/null 2>&1
cat "$OUT/e2e/table.md"
