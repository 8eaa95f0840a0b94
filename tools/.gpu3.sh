. .gpu/r-env.sh
export R_LIBS="$PWD/.gpu/lib"
cd tests/testthat
Rscript -e 'library(gpuiso); print(gpu_info())' 2>&1 | tail -7
timeout 300 Rscript -e "suppressMessages({library(testthat); library(gpuiso)}); r <- as.data.frame(test_dir('.', package='gpuiso', load_package='installed', reporter=SummaryReporter\$new(show_praise=FALSE), stop_on_failure=FALSE)); cat('RESULT suite', sum(r\$nb), 'failed', sum(r\$failed), 'skipped', sum(r\$skipped), '\n'); print(r[r\$failed > 0 | r\$error, c('file','test')])" > "$OUT/suite-gpu.log" 2>&1
grep -A12 "RESULT\|Failed" "$OUT/suite-gpu.log" | cut -c1-300 | tail -30
for f in test-exact.R test-idr-range.R test-conditions.R; do
NOT_CRAN=true GPUISO_EXACT_DEVICE=gpu GPUISO_EXACT_OUT="$OUT/exact-gpu.rds" timeout 200 Rscript -e "suppressMessages({library(testthat); library(gpuiso)}); source('setup.R'); source('helper-reference.R'); source('helper-gpu.R'); r <- as.data.frame(test_file('$f', package='gpuiso', load_package='installed', reporter='summary')); cat('RESULT $f', sum(r\$nb), 'failed', sum(r\$failed), 'skipped', sum(r\$skipped), '\n')" > "$OUT/$f.log" 2>&1
grep "^\[exact\]\|RESULT" "$OUT/$f.log" | cut -c1-250
done
