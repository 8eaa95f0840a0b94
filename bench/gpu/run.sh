#!/usr/bin/env bash
# The GPU benchmark in one device call, from the repository root:
#
#     bash bench/gpu/run.sh            (device tool: carry [".gpu"], timeout_s 600)
#
# Needs .gpu/r-env.sh + .gpu/r-bundle.tar.xz (../shared/gpu/make-r-bundle.sh .gpu) and the
# peers in .gpu/peers/ (torchsort-0.1.10.tar.gz, torchisotonic-0.2.1-py3-none-any.whl); see
# bench/gpu/README.md. Writes under "$OUT/bench" (default /tmp/gpuiso-bench when OUT is
# unset): log.txt, env.txt, gpuiso.csv, peers.csv, table.md.
#
# Environment (all optional):
#   DIRECTION=decreasing|increasing  direction of every fit, gpuiso and peers (default decreasing)
#   GPUISO_LIB=DIR                   an R library that already holds gpuiso built for sm_90:
#                                    skips the install
#   GPUISO_BENCH_SHAPES=100x1e3,...  the grid (default: the 7 shapes of the paper's Table 1)
#   GPUISO_BENCH_PRECISION=float32,float64
#   GPUISO_BENCH_TOTAL_S=450         target wall time of the whole script; the two benchmark
#                                    steps get what the builds leave, and stop starting cells
#                                    when their share is spent (then `timeout` as a last resort)
#   GPUISO_BENCH_COMMIT=abc1234      commit label for env.txt (the device copy has no .git)
set -u

HERE=bench/gpu
OUTDIR=${OUT:-/tmp/gpuiso-bench}/bench
mkdir -p "$OUTDIR"
LOG="$OUTDIR/log.txt"
: > "$LOG"

DIRECTION=${DIRECTION:-decreasing}
TOTAL=${GPUISO_BENCH_TOTAL_S:-450}
SHAPES=${GPUISO_BENCH_SHAPES:-100x1e3,1e6x16,1e4x1e3,1e3x1e4,1x1e6,1x1e7,1x1e8}
PRECISION=${GPUISO_BENCH_PRECISION:-float32,float64}
T0=$SECONDS

main() {
  step() { echo; echo "=== [$((SECONDS - T0)) s] $*"; }
  left() { echo $((TOTAL - (SECONDS - T0))); }
  tail_of() { echo "--- $1 (last ${2:-25} lines)"; tail -n "${2:-25}" "$1" 2>/dev/null; }

  step "R bundle"
  if ! . .gpu/r-env.sh; then echo "r-env.sh failed: no R"; fi
  command -v Rscript || echo "Rscript not on PATH"

  export TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=8 TORCH_EXTENSIONS_DIR=/tmp/torch_extensions
  export PYTHONUNBUFFERED=1
  NCORES=$(nproc 2>/dev/null || echo 16)
  THREADS=$(( NCORES < 16 ? NCORES : 16 ))

  step "builds (in parallel): torchsort, torchisotonic JIT, gpuiso"
  ti_whl=$(ls .gpu/peers/torchisotonic-*.whl .gpu/peers/torchisotonic-*.tar.gz 2>/dev/null | head -1)
  ts_src=$(ls .gpu/peers/torchsort-*.tar.gz .gpu/peers/torchsort-*.whl 2>/dev/null | head -1)
  pid_ti="" pid_ts="" pid_gi=""
  if [ -n "$ti_whl" ]; then
    # the wheel first, alone (two pips at once in one site-packages), then its JIT build
    timeout 60 python3 -m pip install -q --no-deps --no-index --no-build-isolation "$ti_whl" \
      > /tmp/build-torchisotonic.log 2>&1 || echo "torchisotonic: pip install failed"
    timeout 240 python3 -c 'import torchisotonic._ext as e; e._load(); print("torchisotonic JIT build ok")' \
      >> /tmp/build-torchisotonic.log 2>&1 &
    pid_ti=$!
  else
    echo "no torchisotonic in .gpu/peers"
  fi
  if [ -n "$ts_src" ]; then
    timeout 240 python3 -m pip install --no-deps --no-index --no-build-isolation "$ts_src" \
      > /tmp/build-torchsort.log 2>&1 &
    pid_ts=$!
  else
    echo "no torchsort in .gpu/peers"
  fi
  if [ -n "${GPUISO_LIB:-}" ] && [ -d "${GPUISO_LIB}/gpuiso" ]; then
    lib=$(cd "$GPUISO_LIB" && pwd)
    echo "gpuiso: prebuilt library $lib"
  else
    lib=/tmp/gpuiso-lib
    mkdir -p "$lib"
    GPUISO_CUDA_ARCH=90 MAKEFLAGS=-j8 timeout 240 R CMD INSTALL --no-docs --no-multiarch \
      -l "$lib" . > /tmp/build-gpuiso.log 2>&1 &
    pid_gi=$!
  fi
  rc_ti=skipped rc_ts=skipped rc_gi=prebuilt
  if [ -n "$pid_gi" ]; then wait "$pid_gi"; rc_gi=$?; step "gpuiso install rc=$rc_gi"
    if [ "$rc_gi" = 0 ]; then tail_of /tmp/build-gpuiso.log 8; else tail_of /tmp/build-gpuiso.log 60; fi
  fi
  if [ -n "$pid_ts" ]; then wait "$pid_ts"; rc_ts=$?; step "torchsort install rc=$rc_ts"
    if [ "$rc_ts" = 0 ]; then tail_of /tmp/build-torchsort.log 3; else tail_of /tmp/build-torchsort.log 60; fi
  fi
  if [ -n "$pid_ti" ]; then wait "$pid_ti"; rc_ti=$?; step "torchisotonic install + JIT build rc=$rc_ti"
    if [ "$rc_ti" = 0 ]; then tail_of /tmp/build-torchisotonic.log 3; else tail_of /tmp/build-torchisotonic.log 60; fi
  fi

  step "environment"
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit: ${GPUISO_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "gpuiso: $(grep '^Version:' DESCRIPTION | cut -d' ' -f2) (from $lib)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
      --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
    echo "nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' | head -1)"
    python3 bench/gpu/peer_versions.py 2>/dev/null
    echo "R: $(R --version 2>/dev/null | head -1)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $NCORES cores"
    echo "direction: $DIRECTION; builds: gpuiso $rc_gi, torchsort $rc_ts, torchisotonic $rc_ti"
  } > "$OUTDIR/env.txt"
  cat "$OUTDIR/env.txt"
  nvidia-smi 2>&1 | head -20

  # the benchmark steps share what is left; gpuiso first (the project's own numbers)
  rem=$(left)
  gb=$(( rem * 35 / 100 )); [ "$gb" -gt 150 ] && gb=150; [ "$gb" -lt 20 ] && gb=20
  step "gpuiso.R (budget ${gb} s, ${rem} s left)"
  timeout $((gb + 60)) Rscript "$HERE/gpuiso.R" --lib "$lib" --out "$OUTDIR/gpuiso.csv" \
    --direction "$DIRECTION" --shapes "$SHAPES" --precision "$PRECISION" \
    --threads "$THREADS" --budget-s "$gb"
  echo "gpuiso.R rc=$?"

  rem=$(left)
  pb=$(( rem - 40 )); [ "$pb" -lt 20 ] && pb=20
  step "peers.py (budget ${pb} s, ${rem} s left)"
  timeout $((pb + 30)) python3 "$HERE/peers.py" "$OUTDIR/peers.csv" --direction "$DIRECTION" \
    --shapes "$SHAPES" --precision "$PRECISION" --budget-s "$pb"
  echo "peers.py rc=$?"

  step "table"
  timeout 30 python3 "$HERE/table.py" "$OUTDIR/gpuiso.csv" "$OUTDIR/peers.csv" \
    --env "$OUTDIR/env.txt" > "$OUTDIR/table.md"
  echo "table.py rc=$?"
  cat "$OUTDIR/table.md"
  step "done"
}

main 2>&1 | tee -a "$LOG"
exit 0
