#!/usr/bin/env bash
. .gpu/r-env.sh
export R_LIBS=$PWD/.gpu/lib
mkdir -p "$OUT"
L="$OUT/log.txt"
(python3 -m pip install --no-deps .gpu/peers/*.whl >/dev/null 2>&1 && TORCH_EXTENSIONS_DIR=/tmp/torch_extensions python3 -c "import torch, torchisotonic; torchisotonic.isotonic(torch.randn(4, 100, device='cuda'))") > "$OUT/peers-install.txt" 2>&1 &
for f in test-idr.R test-gpu-transfer.R test-device.R; do
  (cd tests/testthat && NOT_CRAN=true timeout 150 Rscript -e '
    suppressMessages({library(testthat); library(gpuiso)})
    for (h in c("setup.R", list.files(pattern = "^helper-"))) source(h)
    f <- commandArgs(TRUE)[1]
    r <- test_file(f, package = "gpuiso", load_package = "installed", reporter = "summary", stop_on_failure = FALSE)
    d <- as.data.frame(r); cat("RESULT", f, sum(d$passed), "passed", sum(d$failed), "failed\n")' "$f") 2>&1 | tail -40 >> "$L"
done
wait
{
echo "== profile"; timeout 150 Rscript bench/gpu/profile.R .gpu/lib 1e8
echo "== e2e"; timeout 200 Rscript bench/gpu/e2e.R .gpu/lib "$OUT/e2e.csv"
echo "== peers"; TORCH_EXTENSIONS_DIR=/tmp/torch_extensions timeout 120 python3 bench/gpu/e2e.py "$OUT/e2e-peers.csv"
echo "== crossover"; timeout 150 Rscript bench/gpu/crossover.R .gpu/lib "$OUT/crossover.csv"
} >> "$L" 2>&1
cat "$L"
