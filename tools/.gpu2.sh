. .gpu/r-env.sh
export R_LIBS="$PWD/.gpu/lib"
cd tests/testthat
NOT_CRAN=true GPUISO_EXACT_DEVICE=gpu GPUISO_EXACT_OUT="$OUT/exact-gpu.rds" timeout 400 Rscript -e "suppressMessages({library(testthat); library(gpuiso)}); source('setup.R'); source('helper-reference.R'); source('helper-gpu.R'); r <- as.data.frame(test_file('test-exact.R', package='gpuiso', load_package='installed', reporter='summary'))" > "$OUT/exact-gpu.log" 2>&1
grep "^\[exact\]\|exact: " "$OUT/exact-gpu.log" | cut -c1-300
