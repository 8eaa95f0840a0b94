#!/bin/sh
# make fuzz: build gpuiso CPU-only into a private library, then run
# tools/fuzz-threads.R against it: random long rows and ragged batches,
# fitted on 1 to 8 threads, which must agree to the bit with each other and
# with each problem's fit alone (see that script for every property).
#
#   sh tools/fuzz-threads.sh                             5 minutes, a seed from the clock
#   FUZZ_SECONDS=3600 FUZZ_SEED=7 sh tools/fuzz-threads.sh   an hour, seed 7
#   FUZZ_THREADS=1,2,16 sh tools/fuzz-threads.sh         compare these thread counts
#   KEEP=1 sh tools/fuzz-threads.sh                      keep the scratch directory
#
# Failing cases are saved (.rds of their inputs) in the scratch directory,
# which is then kept. Ends with
#   fuzz-threads: N rows, N batches, N failed (seed S)
# and fails when a case failed.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=tools/dev-common.sh
. tools/dev-common.sh

seconds=${FUZZ_SECONDS:-300}
seed=${FUZZ_SEED:-}
scratch_dir fuzz

install_cpu_lib fuzz
mkdir -p "$work/failures"

status=0
R_LIBS="$work/lib${R_LIBS:+:$R_LIBS}" \
  "$RSCRIPT" --vanilla tools/fuzz-threads.R "$seconds" "$seed" "$work/failures" ||
  status=$?
if [ "$status" -ne 0 ]; then
  # keep the failing inputs
  trap - EXIT
  echo "fuzz: failing inputs kept in $work/failures" >&2
fi
exit "$status"
