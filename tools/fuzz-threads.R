# Random inputs against the CPU engine's threads, for as long as asked:
# the tests of tests/testthat/test-threads.R fix their inputs; this draws
# new ones, so that a long run meets cases nobody wrote down.
#
#   Rscript tools/fuzz-threads.R [seconds] [seed] [failures-dir]
#
# seconds default 300; the seed, when missing or empty, comes from the
# clock. `make fuzz` runs it on a CPU-only build (tools/fuzz-threads.sh).
# Two kinds of case, alternating:
#   row    one problem of 65,535 to 400,000 elements (cut into pieces, one
#          pass each, merged along the bridges), made of 1 to 12 segments of
#          different shapes and magnitudes (rising, falling, noise, ties, a
#          cliff, sawtooth, 1e+-250, values spanning 1e+-300, near the
#          largest double), with one of eight kinds of weights (none, ones,
#          log-uniform, a third zero, runs of zeros across pieces, spanning
#          1e+-300, subnormal mixed with 1e308, small integers with zeros);
#          half of them with the threshold of the streamed stores (2^23
#          elements) lowered, so that on more than one thread their fits are
#          written past the cache;
#   batch  a ragged batch of 1 to 3,000 problems of 1 to 90,000 elements,
#          short and long mixed, its groups in order or shuffled.
# What must hold:
#   row    the fit on 1, 2, 3, 5 and 8 threads identical to the bit; exactly
#          monotone; the decreasing fit of -y equal to -fit; the row inside a
#          batch between two short problems fitted as it is alone; within
#          1e-12 (relative to 1 + |z|) of the reference of
#          tests/testthat/helper-reference.R where that reference can solve
#          it; KKT residual below 1e-10; isotonic_vjp()'s gradient (or its
#          overflow error) identical on those threads;
#   batch  the fit on 1, 2, 4 and 7 threads identical; each of up to 25
#          problems drawn from it identical to its fit alone; a matrix of
#          the problems' first elements fitted column by column as alone.
# FUZZ_THREADS="1,2,16" compares those thread counts instead (on a machine
# with the cores, real concurrency rather than threads taking turns).
# Threads above the machine's processors are forced with the test hook
# (gpuiso:::test_threads_uncapped()). Each failing case is saved, as an
# .rds of its inputs, in failures-dir (default: the working directory).
# Exit status 1 when a case failed.

suppressPackageStartupMessages(library(gpuiso))
args <- commandArgs(TRUE)
seconds <- if (length(args) >= 1L) as.numeric(args[1L]) else 300
seed <- if (length(args) >= 2L && nzchar(args[2L])) as.integer(args[2L]) else
  as.integer(as.numeric(Sys.time()) %% 1e6)
out_dir <- if (length(args) >= 3L) args[3L] else "."
if (!is.finite(seconds) || seconds <= 0) stop("seconds must be a positive number")
if (is.na(seed)) stop("seed must be a whole number")

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
root <- if (length(script) == 1L) dirname(dirname(normalizePath(script))) else getwd()
helpers <- file.path(root, "tests", "testthat",
                     c("helper-threads.R", "helper-reference.R"))
for (f in helpers) sys.source(f, envir = environment())
# more than two threads, whatever R CMD check's limit in the environment
Sys.unsetenv("_R_CHECK_LIMIT_CORES_")
if (is.null(threads_hook())) {
  stop("this build of gpuiso has no test_threads_uncapped(): cannot force threads")
}
# the thread counts to compare, the first the reference: FUZZ_THREADS
# ("1,2,16", say, on a 16-core machine), else those below
env_threads <- Sys.getenv("FUZZ_THREADS", "")
threads_of <- function(default) {
  if (!nzchar(env_threads)) return(default)
  t <- as.integer(strsplit(env_threads, ",", fixed = TRUE)[[1L]])
  if (length(t) < 2L || anyNA(t) || any(t < 1L)) {
    stop("FUZZ_THREADS must be two or more positive whole numbers, comma-separated")
  }
  t
}
row_threads <- threads_of(c(1L, 2L, 3L, 5L, 8L))
batch_threads <- threads_of(c(1L, 2L, 4L, 7L))

## ------------------------------------------------------------- inputs ----

segment <- function(kind, m) switch(kind,
  rising = sort(rnorm(m)) * runif(1, 0.1, 10),
  falling = sort(rnorm(m), decreasing = TRUE),
  noise = rnorm(m, sd = runif(1, 0, 3)),
  ties = rep(round(rnorm(1), 1), m),
  integers = sample(0:3, m, TRUE),
  cliff = c(rep(1e3, m - 1L), -1e3),
  sawtooth = rep_len(seq(0, 1, length.out = 17L), m),
  huge = rnorm(m) * 1e250,
  tiny = rnorm(m) * 1e-250,
  spanning = rnorm(m) * 10^sample(c(-300, -100, 0, 100, 300), m, TRUE),
  near_max = runif(m, 0.9, 1) * 1.7e308 * sample(c(-1, 1), m, TRUE))

row_weights <- function(kind, n) {
  w <- switch(kind,
    none = NULL,
    ones = rep(1, n),
    loguniform = exp(runif(n, 0, 8)),
    third_zero = replace(runif(n), sample(n, n %/% 3L), 0),
    zero_runs = {
      w <- rep(1, n)
      for (a in sample(n, 20L)) w[a:min(n, a + sample(0:70000, 1L))] <- 0
      w
    },
    spanning = 10^runif(n, -300, 300),
    subnormal_huge = c(5e-324, 1e308)[sample(2L, n, TRUE)],
    small_integers = sample(0:5, n, TRUE))
  if (!is.null(w) && !any(w > 0)) w[1L] <- 1
  w
}

draw_row <- function() {
  n <- sample(c(65535L, 65536L, 65537L, 98304L, 131072L, 131073L,
                sample(65536:400000, 1L)), 1L)
  nseg <- sample(12L, 1L)
  lens <- diff(c(0L, sort(sample(2:(n - 1L), nseg - 1L)), n))
  kinds <- sample(c("rising", "falling", "noise", "ties", "integers", "cliff",
                    "sawtooth", "huge", "tiny", "spanning", "near_max"),
                  nseg, TRUE)
  wkind <- sample(c("none", "ones", "loguniform", "third_zero", "zero_runs",
                    "spanning", "subnormal_huge", "small_integers"), 1L)
  stream <- runif(1) < 0.5
  list(y = unlist(Map(segment, kinds, lens), use.names = FALSE),
       w = row_weights(wkind, n), decreasing = runif(1) < 0.3, stream = stream,
       what = sprintf("row of %d: %s; weights %s%s", n,
                      paste(kinds, collapse = ","), wkind,
                      if (stream) "; written past the cache" else ""))
}

problem_values <- function(m) switch(sample(7L, 1L),
  rnorm(m), sort(rnorm(m)), sort(rnorm(m), decreasing = TRUE), rep(1, m),
  sample(0:2, m, TRUE), rnorm(m) * 10^sample(c(-280, 0, 280), 1L),
  rnorm(m) * 10^sample(c(-300, 0, 300), m, TRUE))

problem_weights <- function(m, kind) switch(kind,
  none = NULL,
  ones = rep(1, m),
  loguniform = exp(runif(m, 0, 8)),
  half_zero = {
    w <- replace(runif(m), sample(m, m %/% 2L), 0)
    w[sample(m, 1L)] <- 1
    w
  },
  spanning = 10^runif(m, -300, 300))

draw_batch <- function() {
  nprob <- sample(c(1:5, 50L, 500L, 3000L), 1L)
  lens <- sample(c(1:40, 100:1200, if (runif(1) < 0.05) 65536:90000), nprob, TRUE)
  if (nprob > 50L) lens <- pmin(lens, 2000L)
  ys <- lapply(lens, problem_values)
  wkind <- sample(c("none", "ones", "loguniform", "half_zero", "spanning"), 1L)
  ws <- if (wkind != "none") lapply(lens, problem_weights, wkind)
  groups <- rep(seq_len(nprob), lens)
  ord <- if (runif(1) < 0.3) sample(length(groups)) else seq_along(groups)
  list(y = unlist(ys)[ord], w = if (!is.null(ws)) unlist(ws)[ord],
       groups = groups[ord], ys = ys, lens = lens,
       decreasing = runif(1) < 0.3,
       what = sprintf("batch of %d problems, %d elements, %s; weights %s",
                      nprob, sum(lens), if (identical(ord, seq_along(groups)))
                        "groups in order" else "groups shuffled", wkind))
}

## ------------------------------------------------------------- checks ----

# The names of the properties that fail, character(0) when all hold.
check_row <- function(d) {
  y <- d$y; w <- d$w; dec <- d$decreasing
  if (d$stream) {
    # the streamed stores of rows of 2^23 and more, on these shorter rows
    was <- gpuiso:::test_stream_min(65536)
    on.exit(gpuiso:::test_stream_min(was), add = TRUE)
  }
  fit <- function(k) with_threads(k, isotonic(y, w, decreasing = dec, device = "cpu"))
  z <- fit(row_threads[1L])
  bad <- character(0)
  for (k in row_threads[-1L]) {
    if (!identical(fit(k), z)) {
      bad <- c(bad, sprintf("%d threads differ from %d", k, row_threads[1L]))
    }
  }
  if (!all(if (dec) diff(z) <= 0 else diff(z) >= 0)) bad <- c(bad, "not monotone")
  mirror <- with_threads(2L, isotonic(-y, w, decreasing = !dec, device = "cpu"))
  if (!identical(mirror, -z)) bad <- c(bad, "decreasing fit of -y is not -fit")
  n <- length(y)
  short <- rnorm(37L)
  wb <- if (!is.null(w)) c(rep(1, 37L), w, rep(1, 37L))
  inside <- with_threads(3L, isotonic(c(short, y, short), wb, decreasing = dec,
                                      groups = rep(1:3, c(37L, n, 37L)),
                                      device = "cpu"))
  if (!identical(inside[37L + seq_len(n)], z)) bad <- c(bad, "differs inside a batch")
  ref <- tryCatch(ref_pava(y, w, dec)$fit, error = function(e) NULL)
  if (!is.null(ref) && all(is.finite(ref)) &&
      !(max(abs(ref - z) / (1 + abs(ref))) < 1e-12)) {
    bad <- c(bad, "differs from the reference")
  }
  if (!isTRUE(kkt_residual(y, z, w, dec) < 1e-10)) bad <- c(bad, "KKT residual")
  g <- rnorm(n)
  # a gradient beyond the range of doubles is an error (gpuiso_error_overflow),
  # the same error on every number of threads
  vjp <- function(k) tryCatch(
    with_threads(k, isotonic_vjp(y, g, w, decreasing = dec, device = "cpu")),
    gpuiso_error_overflow = function(e) conditionMessage(e))
  v1 <- vjp(row_threads[1L])
  for (k in row_threads[-1L]) {
    if (!identical(vjp(k), v1)) bad <- c(bad, sprintf("gradient on %d threads differs", k))
  }
  bad
}

check_batch <- function(d) {
  y <- d$y; w <- d$w; g <- d$groups; dec <- d$decreasing
  fit <- function(k) with_threads(k, isotonic(y, w, groups = g, decreasing = dec,
                                              device = "cpu"))
  z <- fit(batch_threads[1L])
  bad <- character(0)
  for (k in batch_threads[-1L]) {
    if (!identical(fit(k), z)) {
      bad <- c(bad, sprintf("%d threads differ from %d", k, batch_threads[1L]))
    }
  }
  nprob <- length(d$lens)
  for (b in sample(nprob, min(nprob, 25L))) {
    idx <- which(g == b)
    alone <- isotonic(y[idx], if (!is.null(w)) w[idx], decreasing = dec, device = "cpu")
    if (!identical(alone, z[idx])) {
      bad <- c(bad, sprintf("problem %d differs from its fit alone", b))
      break
    }
  }
  if (nprob > 1L) {
    m <- min(d$lens)
    Y <- matrix(vapply(d$ys, function(v) v[seq_len(m)], numeric(m)), m)
    Z <- with_threads(3L, isotonic(Y, decreasing = dec, device = "cpu"))
    for (j in seq_len(ncol(Y))) {
      if (!identical(Z[, j], isotonic(Y[, j], decreasing = dec, device = "cpu"))) {
        bad <- c(bad, sprintf("matrix column %d differs from its fit alone", j))
        break
      }
    }
  }
  bad
}

## --------------------------------------------------------------- run ----

cat(sprintf("fuzz-threads: seed %d, %g s, gpuiso %s\n", seed, seconds,
            format(utils::packageVersion("gpuiso"))))
stop_at <- Sys.time() + seconds
cases <- c(row = 0L, batch = 0L)
failed <- 0L
i <- 0L
while (Sys.time() < stop_at) {
  i <- i + 1L
  # a seed per case, to replay it alone
  case_seed <- as.integer((seed * 1000 + i) %% .Machine$integer.max)
  set.seed(case_seed)
  kind <- if (i %% 2L) "row" else "batch"
  d <- if (kind == "row") draw_row() else draw_batch()
  bad <- tryCatch(if (kind == "row") check_row(d) else check_batch(d),
                  error = function(e) paste("error:", conditionMessage(e)))
  cases[kind] <- cases[kind] + 1L
  if (length(bad)) {
    failed <- failed + 1L
    file <- file.path(out_dir, sprintf("fuzz-threads-%d.rds", case_seed))
    saveRDS(d, file)
    cat(sprintf("FAILED case %d (set.seed(%d)), %s, decreasing = %s: %s; inputs in %s\n",
                i, case_seed, d$what, d$decreasing, paste(bad, collapse = "; "), file))
  }
}
cat(sprintf("fuzz-threads: %d rows, %d batches, %d failed (seed %d)\n",
            cases[["row"]], cases[["batch"]], failed, seed))
quit(status = as.integer(failed > 0L), save = "no")
