. .gpu/r-env.sh
export R_LIBS="$PWD/.gpu/lib"
cd tests/testthat
for f in test-idr-range.R test-calibrate.R test-calibrate-interface.R test-reliability.R test-calibrate-predict.R; do
NOT_CRAN=true timeout 100 Rscript -e "suppressMessages({library(testthat); library(gpuiso)}); source('setup.R'); source('helper-reference.R'); source('helper-gpu.R'); r <- as.data.frame(test_file('$f', package='gpuiso', load_package='installed', reporter='summary')); cat('RESULT $f', sum(r\$nb), 'failed', sum(r\$failed), 'skipped', sum(r\$skipped), '\n')" > "$OUT/$f.log" 2>&1
grep "RESULT" "$OUT/$f.log"; grep -A8 "Failure\|Error" "$OUT/$f.log" | head -20
done
