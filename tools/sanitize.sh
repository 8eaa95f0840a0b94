#!/bin/sh
# make sanitize: build gpuiso CPU-only with AddressSanitizer and UBSan into a
# private library, then run the testthat suite (tests/testthat: the unit
# tests and the bad-input corpus) one file per R process, with the sanitizer
# runtimes preloaded into R (R itself is not instrumented). Fails on any
# sanitizer report, on a crashed R and on a failed test, and ends with
#   sanitize: N test files, N sanitizer reports, N files failed
#
#   sh tools/sanitize.sh                      every test file
#   TESTS="test-isotonic corpus*" sh tools/sanitize.sh   some of them
#   NOT_CRAN=true sh tools/sanitize.sh        the longer, not-CRAN tests too
#   KEEP=1 sh tools/sanitize.sh               keep the scratch directory
#
# Reports go to files (log_path) as well, so that reports of child R
# processes (the corpus runs crash-prone cases in one) are counted even when
# the test captures their output. About 5 minutes on two idle cores (9 on
# a busy machine): seconds to build, test-isoreg most of the rest.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=tools/dev-common.sh
. tools/dev-common.sh

CC=${CC:-$("$R" CMD config CC)}
asan=$($CC -print-file-name=libasan.so)
ubsan=$($CC -print-file-name=libubsan.so)
for f in "$asan" "$ubsan"; do
  if [ ! -f "$f" ]; then
    echo "sanitize: $CC has no $(basename "$f") (Debian: libasan8 and libubsan1, from gcc)" >&2
    exit 1
  fi
done

files=$(test_files)
scratch_dir sanitize

flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
# The user Makevars comes last: CFLAGS replaces R's (the package's
# PKG_CFLAGS, with OpenMP, stays), LDFLAGS links the runtimes.
cat > "$work/Makevars" <<EOT
CFLAGS = -g -O1 $flags
LDFLAGS = $flags
EOT

echo "sanitize: building gpuiso (CPU only) with $flags"
copy_pkg
mkdir -p "$work/lib"
# The test load is skipped: it would load the instrumented library into an
# R without the runtimes. The tests below load it with them.
if ! (cd "$work/pkg" && R_MAKEVARS_USER="$work/Makevars" GPUISO_CUDA=no \
      "$R" CMD INSTALL --no-docs --no-test-load --library="$work/lib" . \
      >"$work/install.log" 2>&1); then
  cat "$work/install.log"
  echo "sanitize: the build failed" >&2
  exit 1
fi
so="$work/lib/gpuiso/libs/gpuiso.so"
if ! nm -D "$so" 2>/dev/null | grep -q __asan_; then
  echo "sanitize: $so is not instrumented (the sanitizer flags were not used)" >&2
  exit 1
fi

write_runner
mkdir -p "$work/reports"
pattern='runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY: (Address|UndefinedBehavior)Sanitizer'
n=0
reports=0
failed=0
for f in $files; do
  n=$((n + 1))
  log="$work/$(basename "$f" .R).log"
  rm -f "$work/reports/"*
  start=$(date +%s)
  status=0
  R_LIBS="$work/lib${R_LIBS:+:$R_LIBS}" \
  LD_PRELOAD="$asan $ubsan" \
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$work/reports/asan" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$work/reports/ubsan" \
    "$RSCRIPT" --vanilla "$work/run-test.R" "$work/pkg/$f" >"$log" 2>&1 || status=$?
  # Each report file holds one report; R's own output may show others.
  found=$(cat "$log" "$work/reports/"* 2>/dev/null | grep -Ec "$pattern" || true)
  counts=$(sed -n 's/^RESULT //p' "$log" | tail -n 1)
  line="$f: $((  $(date +%s) - start )) s"
  if [ -n "$counts" ]; then
    # shellcheck disable=SC2086 # three numbers
    set -- $counts
    line="$line, $2 passed, $1 failed, $3 skipped"
  else
    line="$line, no test results (exit status $status)"
  fi
  if [ "$found" -gt 0 ]; then
    # One report can match more than one line: count the report files and
    # the reports in R's output, at least one.
    k=$(grep -Ec 'ERROR: AddressSanitizer|runtime error:' "$log" || true)
    k=$((k + $(find "$work/reports" -type f | wc -l)))
    [ "$k" -gt 0 ] || k=1
    reports=$((reports + k))
    echo "$line, $k SANITIZER REPORT(S):"
    # The reports without R's own frames and ASan's shadow map.
    for r in "$work/reports/"* "$log"; do
      [ -f "$r" ] || continue
      sed -n -E "/$pattern/,/Shadow bytes around/p" "$r" |
        grep -v -e 'libR\.so' -e 'Shadow bytes around' | head -n 40
    done
  else
    echo "$line"
  fi
  if [ "$status" -ne 0 ] || [ -z "$counts" ]; then
    failed=$((failed + 1))
    if [ "$found" -eq 0 ]; then tail -n 40 "$log"; fi
  fi
done

echo "sanitize: $n test files, $reports sanitizer reports, $failed files failed"
[ "$reports" -eq 0 ] && [ "$failed" -eq 0 ]
