#!/bin/sh
# make valgrind: build gpuiso CPU-only (R's flags, with -g) into a private
# library and run test files of tests/testthat under valgrind's memcheck,
# one file per R process (R -d valgrind). Fails on any valgrind error (an
# "ERROR SUMMARY" other than 0 errors), a crashed R or a failed test, and
# ends with
#   valgrind: N test files, N valgrind errors, N files failed
#
#   TESTS="test-isotonic vjp" sh tools/valgrind.sh   some test files
#   sh tools/valgrind.sh                   all of them: slow, see below
#   VALGRIND_OPTS=--track-origins=yes      more valgrind options (slower)
#   NOT_CRAN=true, KEEP=1                  as for tools/sanitize.sh
#
# Valgrind runs R 10 to 50 times slower: on two cores test-vjp takes about
# 1 minute (47 s), test-isotonic about 5 (306 s; 24 s under make sanitize),
# and the whole suite hours (test-isoreg, 3 minutes without valgrind,
# most of it).
# Child R processes that tests start run without valgrind; make sanitize
# covers them.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=tools/dev-common.sh
. tools/dev-common.sh

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind: valgrind is not installed (Debian: apt-get install valgrind)" >&2
  exit 1
fi

files=$(test_files)
scratch_dir valgrind

# Valgrind 3.19 (Debian 12) cannot decode some VEX moves that GCC makes in
# the weighted pass's FMA clone, and raises SIGILL there on a processor with
# FMA: the build leaves that clone out, and the plain pass (the same source)
# runs instead.
echo 'CPPFLAGS += -DGI_NO_FMA_CLONE' > "$work/Makevars"
install_cpu_lib valgrind "$work/Makevars"

write_runner
n=0
errors=0
failed=0
for f in $files; do
  n=$((n + 1))
  base=$(basename "$f" .R)
  log="$work/$base.log"
  vlog="$work/$base.valgrind"
  start=$(date +%s)
  status=0
  R_LIBS="$work/lib${R_LIBS:+:$R_LIBS}" \
    "$R" -d "valgrind --error-exitcode=1 --leak-check=no --log-file=$vlog ${VALGRIND_OPTS:-}" \
    --vanilla --no-echo -f "$work/run-test.R" --args "$work/pkg/$f" >"$log" 2>&1 || status=$?
  counts=$(sed -n 's/^RESULT //p' "$log" | tail -n 1)
  k=$(sed -n 's/.*ERROR SUMMARY: \([0-9][0-9]*\) error.*/\1/p' "$vlog" 2>/dev/null | tail -n 1)
  line="$f: $(( $(date +%s) - start )) s"
  bad=1
  if [ -n "$counts" ]; then
    # shellcheck disable=SC2086 # three numbers
    set -- $counts
    bad=$1
    line="$line, $2 passed, $1 failed, $3 skipped"
  else
    line="$line, no test results (exit status $status)"
  fi
  if [ -z "$k" ]; then
    # No summary: valgrind itself did not finish (R crashed under it).
    k=1
    echo "$line, NO VALGRIND SUMMARY:"
    tail -n 40 "$vlog" 2>/dev/null || true
  elif [ "$k" -gt 0 ]; then
    echo "$line, $k VALGRIND ERROR(S):"
    sed '1,/Command:/d' "$vlog" | head -n 80
  else
    echo "$line, 0 valgrind errors"
  fi
  errors=$((errors + k))
  if [ "$bad" -gt 0 ]; then
    failed=$((failed + 1))
    tail -n 40 "$log"
  fi
done

echo "valgrind: $n test files, $errors valgrind errors, $failed files failed"
[ "$errors" -eq 0 ] && [ "$failed" -eq 0 ]
