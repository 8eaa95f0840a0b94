# Threads for the tests: with_threads(), and whether more than two may run.
#
# R CMD check --as-cran sets _R_CHECK_LIMIT_CORES_, and then a package may
# use at most two cores: 1 and 2 threads always run, 3 and more only where
# that variable is unset or "false" (as parallel:::.check_ncores() reads
# it). On a machine of fewer processors the engine caps the threads it is
# asked for; the test-only hook gpuiso:::test_threads_uncapped(TRUE) lifts
# the cap, so that a two-core machine really runs on eight. Without the
# hook (an engine that predates it) the cases of 3 and more threads skip.

# The hook, or NULL when this build of the package has none.
threads_hook <- function() {
  ns <- asNamespace("gpuiso")
  if (exists("test_threads_uncapped", envir = ns, inherits = FALSE)) {
    get("test_threads_uncapped", envir = ns, inherits = FALSE)
  }
}

# Why more than two threads cannot run here, or NULL when they can.
many_threads_unavailable <- function() {
  lim <- Sys.getenv("_R_CHECK_LIMIT_CORES_", "")
  if (nzchar(lim) && !identical(tolower(lim), "false")) {
    return(sprintf("_R_CHECK_LIMIT_CORES_ is \"%s\": at most 2 threads under R CMD check", lim))
  }
  if (is.null(threads_hook())) {
    return("gpuiso:::test_threads_uncapped() does not exist: 3 to 8 threads cannot be forced")
  }
  NULL
}

# The thread counts the tests may use here: 1 and 2, and 3 to `most` when
# more than two may run.
thread_counts <- function(most = 8L) {
  if (is.null(many_threads_unavailable())) seq_len(most) else 1:2
}

# At the end of a test that ran 1 and 2 threads only: skip, saying why the
# others were not run (a test whose cases all ran passes on).
skip_unless_many_threads <- function() {
  why <- many_threads_unavailable()
  if (!is.null(why)) skip(paste("1 and 2 threads checked; 3 to 8 not run:", why))
  invisible(TRUE)
}

# `code` on k threads: options(gpuiso.threads = k), and for k > 2 the cap
# lifted by the hook; both restored on exit. k > 2 where it may not run is
# an error rather than a quiet run on more cores than allowed.
with_threads <- function(k, code) {
  k <- as.integer(k)
  if (k > 2L) {
    why <- many_threads_unavailable()
    if (!is.null(why)) stop(sprintf("with_threads(%d): %s", k, why), call. = FALSE)
    hook <- threads_hook()
    was <- hook(TRUE)
    on.exit(hook(isTRUE(was)), add = TRUE)
  }
  old <- options(gpuiso.threads = k)
  on.exit(options(old), add = TRUE)
  force(code)
}

# object identical to expected (bit for bit, as identical() sees it), with
# a short report of where they differ: how many elements, the first one.
# (Cheaper than expect_identical() on long vectors, where waldo compares.)
expect_same_bits <- function(object, expected, label, expected.label = "expected") {
  ok <- identical(object, expected)
  expect(ok, if (ok) "" else sprintf("%s differs from %s: %s", label, expected.label,
                                     describe_difference(object, expected)))
  invisible(object)
}

describe_difference <- function(a, b) {
  if (is.list(a) && is.list(b) && length(a) == length(b)) {
    parts <- vapply(seq_along(a), function(i) {
      if (identical(a[[i]], b[[i]])) "" else
        sprintf("[[%s]] %s", if (is.null(names(a))) i else names(a)[i],
                describe_difference(a[[i]], b[[i]]))
    }, "")
    return(paste(parts[nzchar(parts)], collapse = "; "))
  }
  if (is.double(a) && is.double(b) && length(a) == length(b)) {
    d <- which(!(a == b) | is.na(a) != is.na(b))
    if (!length(d)) return("in their attributes")
    return(sprintf("%d of %d elements differ, the first [%d]: %.17g vs %.17g",
                   length(d), length(a), d[1L], a[d[1L]], b[d[1L]]))
  }
  paste(utils::head(as.character(all.equal(a, b)), 5L), collapse = "\n")
}

# f() on every thread count of `threads`: expects each result identical to
# the bit to that of the first count, and returns that one.
same_on_threads <- function(f, label, threads = thread_counts()) {
  ref <- with_threads(threads[1L], f())
  for (k in threads[-1L]) {
    expect_same_bits(with_threads(k, f()), ref,
                     label = sprintf("%s, on %d threads", label, k),
                     expected.label = sprintf("the result on %d", threads[1L]))
  }
  ref
}

# Whether the heavier cases run: NOT_CRAN=true, as skip_on_cran() reads it
# outside an interactive session.
heavy_tests <- function() interactive() || identical(Sys.getenv("NOT_CRAN"), "true")
