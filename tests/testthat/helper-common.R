# Small helpers shared by the tests. The independent oracles (ref_pava(),
# ref_brute(), kkt_residual(), ...) live in helper-reference.R.

# Number of blocks of a fit: runs of equal fitted value.
n_blocks <- function(z) if (length(z)) 1L + sum(diff(z) != 0) else 0L

# Largest deviation of z from a reference r, relative to 1 + |r|.
rel_dev <- function(z, r) {
  if (!length(r)) return(0)
  max(abs(z - r) / (1 + abs(r)))
}

# z within tol * (1 + |r|) of r everywhere.
expect_close <- function(z, r, tol = 1e-12, label = "") {
  expect_identical(length(z), length(r))
  d <- rel_dev(as.vector(z), as.vector(r))
  expect(is.finite(d) && d <= tol,
         sprintf("%s: deviation %.3g exceeds %.3g (relative to 1 + |ref|)",
                 label, d, tol))
}

# An input error (class "gpuiso_error_input") whose message matches regexp;
# returns the condition.
expect_input_error <- function(expr, regexp) {
  expect_error(expr, regexp = regexp, class = "gpuiso_error_input")
}

# Small fixed data for the snapshots of printed output and messages
# (_snaps/): y on x for isoreg() and idr(), outcomes o of scores s for
# iso_calibrate() and reliability_diagram(). The snapshots are what users
# read, on the CPU engine; they run under R CMD check too (cran = TRUE):
# plain text of fixed data, the same on every platform.
snap <- list(x = c(1, 2, 2, 3, 4, 5, 6, 7, 8, 9),
             y = c(2.1, 1.0, 3.5, 2.5, 4.0, 3.0, 6.0, 5.5, 7.2, 8.0),
             s = c(0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9),
             o = c(0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1))

# Monotone in the stated direction, exactly.
is_monotone <- function(z, decreasing = FALSE) {
  z <- as.vector(z)
  if (decreasing) !is.unsorted(rev(z)) else !is.unsorted(z)
}

# The package's zero-weight convention (api spec, ?isotonic): a zero-weight
# point takes the fitted value of the nearest positive-weight point to its
# RIGHT, or of the last positive-weight point when none is to its right.
# Written out here so that the tests do not depend on how the reference
# helpers treat zero weights: only the references' values at positive-weight
# points are used, spread with this rule.
fill_right <- function(fit_pos, pos, n) {
  j <- findInterval(seq_len(n), pos, left.open = TRUE) + 1L
  fit_pos[pmin(j, length(pos))]
}

ref_fit <- function(y, w = NULL, decreasing = FALSE) {
  y <- as.double(y)
  if (is.null(w) || all(w > 0)) return(ref_pava(y, w, decreasing)$fit)
  pos <- which(w > 0)
  fill_right(ref_pava(y[pos], w[pos], decreasing)$fit, pos, length(y))
}

brute_fit <- function(y, w = NULL, decreasing = FALSE) {
  y <- as.double(y)
  if (is.null(w) || all(w > 0)) return(ref_brute(y, w, decreasing))
  pos <- which(w > 0)
  fill_right(ref_brute(y[pos], w[pos], decreasing), pos, length(y))
}

# `code` with the k-th look at interrupts of each engine call reporting
# one, as Ctrl-C would (GPUISO_TEST_INTERRUPT); "stopped" when it stopped.
with_interrupt_at <- function(k, code) {
  old <- Sys.getenv("GPUISO_TEST_INTERRUPT")
  on.exit(Sys.setenv(GPUISO_TEST_INTERRUPT = old), add = TRUE)
  Sys.setenv(GPUISO_TEST_INTERRUPT = k)
  tryCatch(code, interrupt = function(e) "stopped")
}

# Evaluate `code` with options set, restoring them afterwards.
with_opts <- function(opts, code) {
  old <- options(opts)
  on.exit(options(old), add = TRUE)
  force(code)
}

# A random problem for property tests: n, values (with or without ties),
# weights (NULL, continuous, spread over orders of magnitude, or integer
# with zeros), direction. Uses the caller's RNG stream.
random_problem <- function(nmax = 300L) {
  n <- sample.int(nmax, 1L)
  kind <- sample.int(7L, 1L)
  y <- switch(kind,
    rnorm(n),
    as.double(sample(-3:3, n, replace = TRUE)),            # many ties
    round(rnorm(n), 1),                                       # decimal ties
    cumsum(rnorm(n)) + seq_len(n) / 10,                       # near sorted
    rcauchy(n),                                               # heavy tails
    rnorm(n) * 10^runif(1, -12, 12),                          # any scale
    sort(rnorm(n)) + rnorm(n, sd = 1e-9))                     # near ties
  wkind <- sample.int(4L, 1L)
  w <- switch(wkind,
    NULL,
    runif(n, 0.1, 1.1),
    exp(runif(n, 0, 8)),
    { v <- as.double(sample(0:3, n, replace = TRUE)); v[sample.int(n, 1L)] <- 1; v })
  list(y = y, w = w, decreasing = runif(1) < 0.5)
}

# The vjp of the api's closed form, d/dy = w G / W and d/dw = (y - z) G / W,
# over a given partition (`starts[i]` TRUE where a block begins; zero-weight
# points belong to the block they are in).
vjp_on_partition <- function(y, z, grad, w, starts) {
  if (!length(y)) return(list(y = numeric(0), weights = numeric(0)))
  if (is.null(w)) w <- rep(1, length(y))
  b <- cumsum(starts)
  G <- rowsum(grad, b)[b, 1L]
  W <- rowsum(w, b)[b, 1L]
  list(y = w * G / W, weights = (y - z) * G / W)
}
