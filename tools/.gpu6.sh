#!/usr/bin/env bash
. .gpu/r-env.sh
mkdir -p "$OUT/e2e"
D=$OUT/e2e
export TORCH_EXTENSIONS_DIR=/tmp/torch_extensions
(python3 -m pip install --no-deps .gpu/peers/torchisotonic-*.whl > /dev/null 2>&1 && python3 -c "import torch, torchisotonic; torchisotonic.isotonic(torch.randn(4, 100, device='cuda'))") > "$D/peer-build.txt" 2>&1 &
OUT=/tmp/chk FILE_TIMEOUT=120 JOBS=4 FILES="test-gpu-transfer.R test-isotonic.R test-vjp.R test-isoreg.R" timeout 130 bash tools/gpu-check.sh 2>&1 | grep "RESULT\|FAILED" > "$OUT/tests.txt"
wait
{ date -u; echo "commit $(cat tools/.commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; lscpu | grep -E 'Model name|^CPU\(s\)'; R --version | head -1; python3 -c 'import torch; print("torch", torch.__version__)'; } > "$D/env.txt" 2>&1
timeout 150 Rscript bench/gpu/e2e.R "$PWD/.gpu/lib" "$D/e2e.csv" > "$D/log.txt" 2>&1
timeout 100 python3 bench/gpu/e2e.py "$D/e2e-peers.csv" >> "$D/log.txt" 2>&1
python3 bench/gpu/e2e_table.py "$D/e2e.csv" "$D/e2e-peers.csv" > "$D/table.md"
cat "$OUT/tests.txt" "$D/table.md"
