#!/usr/bin/env bash
# The end-to-end benchmark from host data (issue 12), in one device call:
#   run tool: command `bash bench/gpu/e2e.sh`, carry [".gpu"], timeout 600
# with gpuiso built for sm_90 into .gpu/lib here (see tools/gpu-check.sh)
# and torchisotonic's wheel in .gpu/peers (see README.md). Writes
# $OUT/e2e/{env.txt,e2e.csv,e2e-peers.csv,crossover.csv,table.md,log.txt}.
set -u
# shellcheck source=/dev/null # written on the device machine
. .gpu/r-env.sh
LIB=${GPUISO_LIB:-$PWD/.gpu/lib}
D=${OUT:-/tmp/gpuiso-e2e}/e2e
mkdir -p "$D"
exec > >(tee "$D/log.txt") 2>&1
{
  date -u
  echo "commit ${GPUISO_BENCH_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  lscpu | grep -E 'Model name|^CPU\(s\)'
  R --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__)'
} > "$D/env.txt" 2>&1
export TORCH_EXTENSIONS_DIR=/tmp/torch_extensions
# the peer's install and JIT build first, so that nothing runs beside the timings
timeout 240 python3 -m pip install --no-deps .gpu/peers/torchisotonic-*.whl > /dev/null 2>&1
timeout 240 python3 -c "import torch, torchisotonic; torchisotonic.isotonic(torch.randn(4, 100, device='cuda'))" ||
  echo "torchisotonic did not build"
timeout 240 Rscript bench/gpu/e2e.R "$LIB" "$D/e2e.csv"
timeout 150 python3 bench/gpu/e2e.py "$D/e2e-peers.csv"
timeout 120 Rscript bench/gpu/crossover.R "$LIB" "$D/crossover.csv"
python3 bench/gpu/e2e_table.py "$D/e2e.csv" "$D/e2e-peers.csv" > "$D/table.md"
cat "$D/table.md"
