# shellcheck shell=sh disable=SC2154 # $work is set by the script that sources this
# Shared by tools/sanitize.sh, tools/valgrind.sh and tools/fuzz-threads.sh
# (sourced, not run): copy the package to a scratch directory, build it
# there, pick the test files, run one test file in a fresh R process.
# POSIX sh.
#
# Sets R and RSCRIPT (the R binaries) and TESTS (empty for all, else names
# such as "test-isotonic isotonic test-corpus*") from the environment.
# Expects the current directory at the repository's root; scratch_dir()
# sets work (the scratch directory) for the other helpers.

R=${R:-R}
RSCRIPT=${RSCRIPT:-Rscript}
TESTS=${TESTS:-}

# A scratch directory in $work for tool $1 ("sanitize", "valgrind"), removed
# on exit unless KEEP is set (then its path is printed).
scratch_dir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/gpuiso-$1.XXXXXX")
  if [ -n "${KEEP:-}" ]; then
    echo "$1: scratch directory $work"
  else
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
  fi
}

# The package sources and tests, without build products, into
# "$work/pkg": builds there leave src/ of the repository alone (objects
# built with sanitizer flags must never end up in an ordinary install), and
# tests run there write nothing into tests/ (testthat's _snaps, say).
copy_pkg() {
  mkdir -p "$work/pkg"
  for f in DESCRIPTION NAMESPACE LICENSE configure cleanup R src man inst tests; do
    [ -e "$f" ] && cp -R "$f" "$work/pkg/"
  done
  (cd "$work/pkg" && sh ./cleanup)
}

# A CPU-only build of the package into "$work/lib", for tool $1 (its name
# in the messages), with R's flags or, given $2, those of that user
# Makevars file as well; shows the build log and fails when it fails.
install_cpu_lib() {
  echo "$1: building gpuiso (CPU only)"
  copy_pkg
  mkdir -p "$work/lib"
  if ! (cd "$work/pkg" &&
        if [ -n "${2:-}" ]; then R_MAKEVARS_USER=$2; export R_MAKEVARS_USER; fi &&
        GPUISO_CUDA=no "$R" CMD INSTALL --no-docs --library="$work/lib" . \
          >"$work/install.log" 2>&1); then
    cat "$work/install.log"
    echo "$1: the build failed" >&2
    return 1
  fi
}

# The test files to run, one path a line, from $TESTS (all by default);
# fails on a name that matches no file.
test_files() {
  if [ -z "${TESTS:-}" ]; then
    ls tests/testthat/test-*.R
    return
  fi
  list=""
  for t in $TESTS; do
    t=${t##*/}
    t=${t%.R}
    t=${t#test-}
    found=""
    for f in tests/testthat/test-$t.R; do
      [ -f "$f" ] || continue
      found=1
      list="$list$f
"
    done
    if [ -z "$found" ]; then
      echo "no test file matches '$t' (tests/testthat/test-$t.R)" >&2
      return 1
    fi
  done
  printf '%s' "$list" | sort -u
}

# "$work/run-test.R": the R code that runs one test file (its argument) as
# R CMD check does (the helpers and setup of tests/testthat, the installed
# package), prints "RESULT <failed or errored> <passed> <skipped>" and exits
# 1 when a test failed or errored.
write_runner() {
  cat > "$work/run-test.R" <<'EOR'
file <- commandArgs(TRUE)[1]
name <- sub("^test[-_]?", "", sub("[.][rR]$", "", basename(file)))
res <- testthat::test_dir(dirname(file), package = "gpuiso",
  filter = paste0("^\\Q", name, "\\E$"), perl = TRUE,
  load_package = "installed", reporter = "summary", stop_on_failure = FALSE)
df <- as.data.frame(res)
bad <- sum(df$failed) + sum(df$error)
cat("RESULT", bad, sum(df$passed), sum(df$skipped), "\n")
quit(status = as.integer(bad > 0), save = "no")
EOR
}
