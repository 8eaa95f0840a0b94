# Within-row parallelism of the CPU engine, across the package. A problem of
# n >= 2^16 elements is cut into P = floor(n / 2^15) pieces, whatever the
# number of threads: piece p (0-based) holds the 0-based elements
# [floor(p n / P), floor((p + 1) n / P)). The pieces are solved apart and
# merged. Shorter problems are solved whole.
#
# Checked here, on sizes around every piece boundary, on the data families of
# the reference suite and on inputs built against the pieces: the fit, and
# the blocks that the gradient uses, are the same to the bit on 1 to 8
# threads (isotonic(), isotonic_vjp(), alone and in batches); and the fit is
# right (exactly monotone, each block the weighted mean of its values, the
# KKT certificate, the convention for zero weights, agreement with
# stats::isoreg() and with fits that take other paths of the engine).
#
# Only 1 and 2 threads run under R CMD check (helper-threads.R); the heavier
# cases run with NOT_CRAN=true.

th_big <- .Machine$double.xmax

# The boundary sizes (every n = k 2^15 - 1, k 2^15, k 2^15 + 1 for P = 1 to
# 4) and one of 9 pieces; one of 30 pieces off CRAN.
th_sizes <- c(65535, 65536, 65537, 98303, 98304, 98305, 131071, 131072, 131073,
              300001)
th_size_large <- 1000003

# ---------------------------------------------------------------------------
# The pieces of the contract.

th_pieces <- function(n) if (n >= 65536) n %/% 32768 else 1

# The first element (1-based) of each piece but the first.
th_piece_starts <- function(n) {
  P <- th_pieces(n)
  if (P < 2) return(integer(0))
  p <- seq_len(P - 1)
  as.integer((p * n) %/% P) + 1L
}

# The boundaries the inputs are built against: those of the pieces, or for a
# row solved whole where its first boundary would be.
th_bounds <- function(n) {
  b <- th_piece_starts(n)
  if (length(b)) b else 32769L
}

# ---------------------------------------------------------------------------
# Exact scaling by powers of two.

# x * 2^s exactly (s a whole number, per element), where x and the result
# are normal doubles: at once where 2^s is a double, else in steps of at
# most 2^1000, each on the way from x to the result.
th_mul_pow2 <- function(x, s) {
  if (length(s) == 1L && is.finite(s) && abs(s) <= 1000) return(x * 2^s)
  s[!is.finite(s)] <- 0 # (from non-finite data: the checks fail on those anyway)
  repeat {
    st <- pmax(pmin(s, 1000), -1000)
    x <- x * 2^st
    s <- s - st
    if (all(s == 0)) return(x)
  }
}

# floor(log2 |x|) for nonzero x (within one of it, which is all the scaling
# needs), `zero` for zeros.
th_exponent <- function(x, zero = -4000) {
  e <- floor(log2(abs(x)))
  e[x == 0] <- zero
  e
}

# z within tol of r relative to 1 + |r| after both are scaled by the power
# of two that brings max |r| near 1 (for data of any magnitude).
expect_close_scaled <- function(z, r, tol, label) {
  e <- if (any(r != 0 & is.finite(r))) max(th_exponent(r[is.finite(r)])) else 0
  expect_close(th_mul_pow2(z, -e), th_mul_pow2(r, -e), tol, label)
}

# ---------------------------------------------------------------------------
# Checks of a fit.

# The runs (of equal fitted value) of the positive-weight points: the run of
# each point, the runs' lengths and last points.
th_runs <- function(z) {
  m <- length(z)
  b <- cumsum(c(TRUE, z[-1L] != z[-m]))
  len <- tabulate(b, b[m])
  list(b = b, len = len, ends = cumsum(len))
}

# The largest of the whole numbers x (in [-8000, 8000]) over each run.
th_run_max <- function(x, r) {
  key <- r$b * 16384 + (x + 8192)
  cummax(key)[r$ends] - seq_along(r$len) * 16384 - 8192
}

# The sums of x over each run, from its running sum.
th_run_sum <- function(x, r) diff(c(0, cumsum(x)[r$ends]))

# The block means property: each run of equal fitted values z of the
# positive-weight points equals the weighted mean of its y, to within tol
# relative to the run's sum(w |y|) / sum(w) (and to the spacing of the
# subnormals, 2^-1074, where that mean underflows). That is, the run's sum
# of w (y - z) is at most tol sum(w |y|); these sums come from one running
# sum of the w (y - z), which stays near zero where the fit is right (so
# each run's sum is accurate to the rounding of its own terms). Values and
# weights far from 1 are first scaled by powers of two per run (products by
# the run's largest, weights by its largest weight), so that nothing
# overflows or loses digits, whatever the range of y and w.
expect_block_means <- function(z, y, w, label, tol = 1e-12) {
  if (!is.null(w)) {
    pos <- w > 0
    z <- z[pos]; y <- y[pos]; w <- w[pos]
  } else {
    w <- rep(1, length(y))
  }
  if (!length(z)) return(invisible())
  r <- th_runs(z)
  ay <- abs(y)
  if (max(ay, abs(z)) <= 2^200 && min(ay[ay > 0], 1) >= 2^-200 &&
      max(w) <= 2^200 && min(w) >= 2^-200) {
    term <- w * y
    res <- w * (y - z)
    slack <- 0 # every mean is far above the subnormals
  } else {
    ew <- th_exponent(w)
    ey <- th_exponent(y, zero = 0)
    ep <- ew + ey                                  # w y is about 2^ep
    ep[y == 0] <- -8000
    E <- th_run_max(ep, r)                         # the run's largest product
    Fw <- th_run_max(ew, r)                        # and largest weight
    term <- th_mul_pow2(th_mul_pow2(w, -ew) * th_mul_pow2(y, -ey),
                        (ep - E[r$b]) * (y != 0))
    # z in the units of the terms over those of the weights, 2^(E - Fw)
    ws <- th_mul_pow2(w, -Fw[r$b])
    res <- term - ws * th_mul_pow2(z, (Fw - E)[r$b])
    # 2^-1074 in those units, times the run's weight
    slack <- th_run_sum(ws, r) * 2^pmin(Fw - E - 1074, 1000)
  }
  A <- th_run_sum(abs(term), r)
  sr <- abs(th_run_sum(res, r))
  ok <- sr <= tol * A + slack
  ok[A == 0] <- sr[A == 0] == 0 # all y zero: so must z be
  dev <- sr / A
  bad <- which(!ok)
  worst <- bad[which.max(dev[bad])]
  expect(!length(bad),
         if (length(bad)) sprintf("%s: %d of %d blocks off the weighted mean of their values; worst %.3g (relative to sum(w|y|)/sum(w)), the block ending at positive-weight point %d",
                                  label, length(bad), length(r$len), dev[worst], r$ends[worst]))
}

# Integer values and weights: block sums exact in double, so each run's value
# is the correctly rounded quotient of its sums.
expect_exact_means <- function(z, y, w, label) {
  if (is.null(w)) w <- rep(1, length(y))
  pos <- w > 0
  z <- z[pos]; y <- y[pos]; w <- w[pos]
  r <- th_runs(z)
  S <- as.vector(rowsum(w * y, r$b, reorder = FALSE))
  W <- as.vector(rowsum(w, r$b, reorder = FALSE))
  expect_same_bits(z[r$ends], S / W, paste(label, "block values"),
                   "their exact weighted means rounded")
}

# The zero-weight convention: a zero-weight point takes the fitted value of
# the nearest positive-weight point to its right (of the last one when none
# is); and the positive-weight points are fitted as if the others were
# absent (here by the engine on the shorter row, which may be solved in
# fewer pieces or whole).
expect_zero_weight_rule <- function(z, y, w, dec, label) {
  if (is.null(w) || all(w > 0)) return(invisible())
  pos <- which(w > 0)
  expect_same_bits(z, fill_right(z[pos], pos, length(z)), paste(label, "zero-weight points"),
                   "the fitted values of their right positive-weight neighbours")
  zp <- isotonic(y[pos], w[pos], decreasing = dec, device = "cpu")
  expect_close_scaled(z[pos], zp, 1e-12, paste(label, "positive-weight points alone"))
}

# Values outside [2^-200, 2^200] send a problem to the engine's scaled or
# wide paths: the fit of the same values scaled into range by a power of two
# (exact) must agree with it.
expect_scale_equivariant <- function(z, y, w, dec, label) {
  m <- max(abs(y))
  if (m == 0 || (m <= 2^200 && m >= 2^-200)) return(invisible())
  e <- max(th_exponent(y))
  zs <- isotonic(th_mul_pow2(y, -e), w, decreasing = dec, device = "cpu")
  expect_close_scaled(z, th_mul_pow2(zs, e), 1e-12, paste(label, "vs the fit scaled into range"))
}

# stats::isoreg() on unweighted rows of values between 1e-3 and 1e3 (its sums
# are plain running sums in double) whose fit has few blocks, without equal
# neighbours (its time grows with n times its knots, and on a run of ties it
# puts a knot at every point). Iso::pava is not used: at these sizes it is
# quadratic (38 s on a noisy trend of 131073).
expect_matches_isoreg <- function(z, y, w, dec, label, max_blocks = 100L) {
  if (!is.null(w) && any(w != 1)) return(invisible())
  m <- max(abs(y))
  if (m > 1e3 || m < 1e-3 || n_blocks(z) > max_blocks || any(diff(y) == 0)) {
    return(invisible())
  }
  r <- if (dec) -stats::isoreg(-y)$yf else stats::isoreg(y)$yf
  expect_close(z, r, 1e-10, paste(label, "vs stats::isoreg"))
}

# Every check of a fit z of (y, w, dec) that is cheap at these sizes.
check_fit <- function(z, y, w, dec, label, exact = FALSE) {
  expect_identical(length(z), length(y), label = paste(label, "length"))
  expect_true(all(is.finite(z)), label = paste(label, "finite"))
  expect_true(is_monotone(z, dec), label = paste(label, "monotone"))
  if (all(y == y[1L])) expect_same_bits(z, y, paste(label, "constant input"), "y")
  expect_zero_weight_rule(z, y, w, dec, label)
  expect_block_means(z, y, w, label)
  if (exact) expect_exact_means(z, y, w, label)
  expect_lte(kkt_residual(y, z, w, decreasing = dec), 1e-12, label = paste(label, "KKT"))
  expect_scale_equivariant(z, y, w, dec, label)
  expect_matches_isoreg(z, y, w, dec, label)
}

# One problem on every thread count: the fit identical across them, and
# checked (check = FALSE: the identity only). With `mirror`, also the fit of
# -y the other way, which must be -z to the bit (on every thread count in
# the heavier runs, on one otherwise). Returns the fit.
run_case <- function(y, w, dec, label, exact = FALSE, check = TRUE, mirror = TRUE,
                     threads = thread_counts()) {
  z <- same_on_threads(function() isotonic(y, w, decreasing = dec, device = "cpu"),
                       label, threads)
  if (check) check_fit(z, y, w, dec, label, exact)
  if (mirror) {
    lab <- paste(label, "mirrored")
    zm <- same_on_threads(function() isotonic(-y, w, decreasing = !dec, device = "cpu"),
                          lab, if (heavy_tests()) threads else threads[1L])
    expect_same_bits(zm, -z, lab, "-(the fit of y)")
  }
  invisible(z)
}

# The gradient on every thread count, identical across them; with `exact`
# (a fit whose blocks are its runs of equal value: integer data), also the
# closed form on those blocks. Returns the gradient.
run_vjp_case <- function(y, w, dec, label, seed, exact = FALSE,
                         threads = thread_counts()) {
  g <- .ref_with_seed(seed, rnorm(length(y)))
  v <- same_on_threads(function() isotonic_vjp(y, g, w, decreasing = dec, device = "cpu"),
                       paste(label, "vjp"), threads)
  if (exact) {
    z <- isotonic(y, w, decreasing = dec, device = "cpu")
    e <- vjp_on_partition(y, z, g, w, c(TRUE, z[-1L] != z[-length(z)]))
    expect_close(v$y, e$y, 1e-10, paste(label, "vjp d/dy on the fit's blocks"))
    expect_close(v$weights, e$weights, 1e-10, paste(label, "vjp d/dw on the fit's blocks"))
  }
  invisible(v)
}

# ---------------------------------------------------------------------------
# The data.

th_families <- c("trend", "increasing", "decreasing", "constant", "ties", "steps",
                 "step_exact", "integers", "huge", "tiny", "wide", "near_max")
th_exact_families <- c("ties", "step_exact", "integers")
th_weight_kinds <- c("none", "exp", "int0", "span", "ones", "int")

# Values of family f, n of them (the caller's RNG state kept): a noisy
# linear trend, the paper's families, all ties, step functions (one with
# steps on the piece boundaries), integers, and the ends of the range: a
# trend at 1e300 and at 1e-300 (the scaled path), values spanning 1e-300 to
# 1e300 (the wide path), and values up to DBL_MAX whose sums overflow.
th_values <- function(f, n, seed) {
  .ref_with_seed(seed, {
    t <- (seq_len(n) - 1) / (n - 1)
    switch(f,
      trend = 3 * t + rnorm(n),
      increasing = gen_family("increasing", n, seed),
      decreasing = gen_family("decreasing", n, seed),
      constant = gen_family("constant", n, seed),
      ties = as.double(sample(-3:3, n, replace = TRUE)),
      steps = gen_family("piecewise", n, seed),
      step_exact = {
        cuts <- sort(unique(c(sample.int(n, 30L), th_bounds(n))))
        lev <- as.double(sample(-6:6, length(cuts) + 1L, replace = TRUE))
        lev[findInterval(seq_len(n), cuts) + 1L]
      },
      integers = as.double(sample(0:9, n, replace = TRUE) + floor(10 * t)),
      huge = (3 * t + rnorm(n)) * 1e300,
      tiny = (3 * t + rnorm(n)) * 1e-300,
      wide = (3 * t + rnorm(n)) * 10^runif(n, -300, 300),
      near_max = th_big * pmax(-1, pmin(1, 2 * t - 1 + rnorm(n, sd = 0.3))),
      stop("th_values: unknown family ", f))
  })
}

# Weights: none, heavy-tailed exp(U[0, 8]), integers 0..3 (zeros among
# them), spanning 1e-300 to 1e300, all ones, integers 1..5.
th_weights <- function(kind, n, seed) {
  .ref_with_seed(seed + 7919L, switch(kind,
    none = NULL,
    exp = exp(runif(n, 0, 8)),
    int0 = { v <- as.double(sample(0:3, n, replace = TRUE)); v[n %/% 2L] <- 1; v },
    span = 10^runif(n, -300, 300),
    ones = rep(1, n),
    int = as.double(sample(1:5, n, replace = TRUE)),
    stop("th_weights: unknown kind ", kind)))
}

th_family_case <- function(f, wk, n, dec, seed) {
  y <- th_values(f, n, seed)
  w <- th_weights(wk, n, seed)
  run_case(y, w, dec, sprintf("%s, weights %s, n = %d, decreasing = %s", f, wk, n, dec),
           exact = f %in% th_exact_families && wk %in% c("none", "ones", "int0", "int"))
}

# Inputs built against the pieces. Each is list(y, w, exact).
th_adversarial_kinds <- c(
  "cliff_end", "cliff_start", "sawtooth", "sawtooth_down", "sawtooth_shifted",
  "dips_at_boundaries", "steps_at_boundaries", "steps_off_by_one", "all_ties",
  "zero_straddle", "zero_piece_end", "zero_piece_start", "zero_first_piece",
  "zero_middle_piece", "zero_last_piece", "zero_head_tail", "zero_one_left",
  "zero_one_per_piece", "zero_sparse",
  "overflow", "overflow_cliff", "overflow_near_max", "overflow_span",
  "rising_ties_at_boundaries", "rising_dip_mid", "rising_huge")

th_adversarial <- function(kind, n, seed) {
  b <- th_bounds(n)
  st <- c(1L, b)
  P <- length(st)
  i <- seq_len(n)
  piece <- findInterval(i, st)                     # 1..P
  within <- (i - st[piece]) / diff(c(st, n + 1L))[piece] # 0 up to 1 in each piece
  t <- (i - 1) / (n - 1)
  # a noisy trend whose zero-weight points hold values far off it: any
  # influence of them on the fit shows
  zero_at <- function(idx) {
    y <- 3 * t + rnorm(n)
    w <- exp(runif(n, 0, 8))
    y[idx] <- sample(c(-1e6, 1e6), length(idx), replace = TRUE)
    w[idx] <- 0
    list(y = y, w = w)
  }
  near <- function(off) unlist(lapply(b, function(x) x + off))
  .ref_with_seed(seed, switch(kind,
    # the last point pulls every block of every piece into one
    cliff_end = list(y = gen_family("cliff", n, seed), w = exp(runif(n, 0, 8))),
    # so does the first
    cliff_start = list(y = c(1e4 * n, gen_family("increasing", n - 1L, seed)), w = NULL),
    # rising within each piece, dropping at each boundary
    sawtooth = list(y = within, w = NULL),
    # each piece below the one before: every merge pools back through all
    sawtooth_down = list(y = within - 2 * piece, w = exp(runif(n, 0, 8))),
    # the drops one point before or after the boundaries, rising overall
    sawtooth_shifted = {
      s <- c(1L, b + ifelse(seq_along(b) %% 2L == 1L, -1L, 1L))
      k <- findInterval(i, s)
      list(y = (i - s[k]) / diff(c(s, n + 1L))[k] + 0.5 * k, w = NULL)
    },
    # a violation on each side of each boundary
    dips_at_boundaries = {
      y <- 3 * t + rnorm(n, sd = 0.01)
      y[b] <- y[b] - 1
      y[b - 1L] <- y[b - 1L] + 1
      list(y = y, w = as.double(sample(1:3, n, replace = TRUE)))
    },
    # a level per piece, ties and a drop between neighbours
    steps_at_boundaries = {
      lev <- as.double(sample(0:3, P, replace = TRUE))
      lev[2L] <- lev[1L]
      if (P >= 3L) lev[3L] <- lev[2L] - 1
      list(y = lev[piece], w = as.double(sample(1:3, n, replace = TRUE)), exact = TRUE)
    },
    # levels rising but for a drop at every other step, the steps one point
    # after the boundaries: 1, 4, 3, 6, 5, ...
    steps_off_by_one = {
      lev <- as.double(seq_len(P) + 2L * (seq_len(P) %% 2L == 0L))
      list(y = lev[findInterval(i, c(1L, b + 1L))], w = NULL, exact = TRUE)
    },
    all_ties = list(y = rep(0.1, n), w = exp(runif(n, 0, 8))),
    zero_straddle = zero_at(near(-3:2)),
    zero_piece_end = zero_at(near(-4:-1)),
    zero_piece_start = zero_at(near(0:3)),
    zero_first_piece = zero_at(which(piece == 1L)),
    zero_middle_piece = zero_at(which(piece == (P + 2L) %/% 2L)),
    zero_last_piece = zero_at(which(piece == P)),
    zero_head_tail = zero_at(c(1:1000, (n - 999L):n)),
    # one positive weight, on a boundary: the fit is its value everywhere
    zero_one_left = {
      y <- 3 * t + rnorm(n)
      k <- b[(length(b) + 1L) %/% 2L]
      list(y = y, w = replace(numeric(n), k, 1), exact = TRUE)
    },
    # one positive weight per piece, its first point, falling: one block
    zero_one_per_piece = {
      y <- rnorm(n) * 1e6
      y[st] <- rev(seq_len(P))
      list(y = y, w = replace(numeric(n), st, 1), exact = TRUE)
    },
    zero_sparse = zero_at(which(runif(n) < 0.95)),
    # sums of values near DBL_MAX overflow double
    overflow = list(y = th_big * pmax(-1, pmin(1, 2 * t - 1 + rnorm(n, sd = 0.3))),
                    w = NULL),
    overflow_cliff = list(y = c(th_big * (0.5 + 0.5 * t[-n]), -th_big),
                          w = exp(runif(n, 0, 8))),
    overflow_near_max = list(y = th_big * (1 - 0.5 * runif(n)), w = exp(runif(n, 0, 8))),
    overflow_span = list(y = th_big * (1 - 0.5 * runif(n)), w = 10^runif(n, -300, 300)),
    # Strictly rising, unit weights: each piece's pass pools nothing, so the
    # engine keeps its blocks' lo sums and starts implied; these make the
    # merge change such pieces. Here each piece's first value ties the last
    # of the piece before it (ties pool).
    rising_ties_at_boundaries = {
      y <- t
      y[b] <- y[b - 1L]
      list(y = y, w = NULL)
    },
    # one point in the middle of a piece falls to a value early in the piece
    # before: the merge pops part of that piece's blocks, not all
    rising_dip_mid = {
      k <- min(3L, P)
      m <- st[k] + (diff(c(st, n + 1L))[k] %/% 2L)
      y <- t
      y[m] <- y[if (k > 1L) st[k - 1L] + 5L else 5L]
      list(y = y, w = NULL)
    },
    # outside the window of dd.h: solved again scaled by a power of two
    rising_huge = list(y = th_big * (0.25 + 0.5 * t), w = NULL),
    stop("th_adversarial: unknown kind ", kind)))
}

th_adversarial_case <- function(kind, n, dec, seed, ...) {
  a <- th_adversarial(kind, n, seed)
  run_case(a$y, a$w, dec, sprintf("%s, n = %d, decreasing = %s", kind, n, dec),
           exact = isTRUE(a$exact), ...)
}

# ---------------------------------------------------------------------------
# The tests.

test_that("the pieces of the contract, as these tests place them", {
  expect_identical(th_piece_starts(65535), integer(0))
  expect_identical(th_piece_starts(65536), 32769L)
  expect_identical(th_piece_starts(98303), 49152L)   # P = 2: floor(98303 / 2)
  expect_identical(th_piece_starts(98304), c(32769L, 65537L))
  expect_identical(th_piece_starts(131073), c(32769L, 65537L, 98305L))
  expect_identical(length(th_piece_starts(300001)), 8L)
  expect_identical(length(th_piece_starts(th_size_large)), 29L)
  # the block means check sees a wrong value, of any magnitude
  y <- c(3, 1, 2, 5)
  expect_success(expect_block_means(c(2, 2, 2, 5), y, NULL, "right"))
  expect_failure(expect_block_means(c(2, 2, 2 + 1e-10, 5), y, NULL, "wrong"))
  expect_failure(expect_block_means(c(1.9, 1.9, 1.9, 5), y, NULL, "wrong"))
  expect_success(expect_block_means(c(1, 1, 2, 5) * 1e300, y * 1e300, 10^c(-300, 300, 0, 1), "huge"))
  expect_failure(expect_block_means(c(2, 2, 2, 5) * 1e300, y * 1e300, c(1, 1e300, 1, 1), "huge"))
  expect_failure(expect_block_means(c(2, 2, 2, 5) * 1e300, y * 1e300, 10^c(-300, 300, 0, 1), "huge"))
  expect_success(expect_block_means(rep(2e-300, 3), c(3e-300, 1e-300, 2e-300), NULL, "tiny"))
  expect_failure(expect_block_means(rep(2.1e-300, 3), c(3e-300, 1e-300, 2e-300), NULL, "tiny"))
  # a mean below the subnormals is zero; zeros must fit as zeros
  expect_success(expect_block_means(c(0, 0), c(0, 1), c(1e200, 1e-200), "underflow"))
  expect_failure(expect_block_means(c(0, 0), c(0, 1), c(1e200, 1e-100), "underflow"))
  expect_failure(expect_block_means(c(1e-300, 1e-300, 1), c(0, 0, 1), NULL, "zeros"))
  # and the bitwise comparison a difference in the last bit
  expect_success(expect_same_bits(c(1, 2, 3), c(1, 2, 3), "x"))
  expect_failure(expect_same_bits(c(1, 2, 3), c(1, 2, 3 + 2 * .Machine$double.eps), "x"),
                 "1 of 3 elements differ, the first \\[3\\]")
  expect_failure(expect_same_bits(list(y = 1, weights = 2), list(y = 1, weights = 3), "v"),
                 "weights")
})

test_that("with_threads() sets the threads and restores them, never above 2 under R CMD check", {
  with_limit <- function(v, code) {
    old <- Sys.getenv("_R_CHECK_LIMIT_CORES_", unset = NA)
    on.exit(if (is.na(old)) Sys.unsetenv("_R_CHECK_LIMIT_CORES_")
            else Sys.setenv("_R_CHECK_LIMIT_CORES_" = old))
    Sys.setenv("_R_CHECK_LIMIT_CORES_" = v)
    force(code)
  }
  before <- getOption("gpuiso.threads")
  expect_identical(with_threads(1L, getOption("gpuiso.threads")), 1L)
  expect_identical(with_threads(2L, getOption("gpuiso.threads")), 2L)
  expect_identical(getOption("gpuiso.threads"), before)
  expect_identical(with_limit("TRUE", thread_counts()), 1:2)
  expect_error(with_limit("TRUE", with_threads(3L, 1)), "at most 2 threads")
  expect_identical(getOption("gpuiso.threads"), before)
  skip_unless_many_threads()
  expect_identical(thread_counts(), 1:8)
  hook <- threads_hook()
  expect_identical(with_threads(8L, getOption("gpuiso.threads")), 8L)
  # the cap is lifted inside, and back where it was after
  expect_true(with_threads(5L, isTRUE(hook(TRUE))))
  expect_false(isTRUE(hook(FALSE)))
  expect_identical(getOption("gpuiso.threads"), before)
})

test_that("reference families at the piece boundaries: the same fit on 1 to 8 threads, and right", {
  # each size once or twice, each family and weighting at least once (the
  # grid of all of them runs off CRAN, below)
  cases <- read.table(header = TRUE, stringsAsFactors = FALSE, text = "
    family     weights n      dec
    trend      exp     65535  FALSE
    step_exact int0    65536  FALSE
    integers   none    65537  TRUE
    constant   exp     98303  FALSE
    ties       int     98304  TRUE
    steps      exp     98305  FALSE
    increasing int0    131071 TRUE
    decreasing none    131072 FALSE
    huge       exp     131073 TRUE
    tiny       none    65536  FALSE
    near_max   none    98304  FALSE
    wide       exp     65537  FALSE
    trend      span    98305  TRUE
    trend      ones    131071 FALSE
    integers   int0    300001 TRUE")
  for (k in seq_len(nrow(cases))) {
    th_family_case(cases$family[k], cases$weights[k], cases$n[k], cases$dec[k], seed = 100L + k)
  }
  skip_unless_many_threads()
})

test_that("inputs against the pieces: the same fit on 1 to 8 threads, and right", {
  # the others, and all of them at every size both ways, off CRAN below
  kinds <- c("cliff_end", "cliff_start", "sawtooth", "sawtooth_down", "sawtooth_shifted",
             "dips_at_boundaries", "steps_at_boundaries", "steps_off_by_one", "all_ties",
             "zero_straddle", "zero_piece_start", "zero_middle_piece", "zero_last_piece",
             "zero_one_per_piece", "overflow", "overflow_span",
             "rising_ties_at_boundaries", "rising_dip_mid", "rising_huge")
  sz <- th_sizes[th_sizes >= 65536 & th_sizes < 300001]
  for (j in seq_along(kinds)) {
    n <- sz[(j - 1L) %% length(sz) + 1L]
    th_adversarial_case(kinds[j], n, dec = FALSE, seed = 200L + j)
  }
  skip_unless_many_threads()
})

test_that("the gradient's blocks are the same on 1 to 8 threads, and right", {
  cases <- list(
    list("integers", "int0", 131073, FALSE, TRUE),
    list("step_exact", "none", 98304, TRUE, TRUE),
    list("ties", "int", 65536, FALSE, TRUE),
    list("trend", "exp", 98305, FALSE, FALSE),
    list("huge", "span", 131072, TRUE, FALSE))
  for (k in seq_along(cases)) {
    cs <- cases[[k]]
    y <- th_values(cs[[1]], cs[[3]], seed = 300L + k)
    w <- th_weights(cs[[2]], cs[[3]], seed = 300L + k)
    run_vjp_case(y, w, cs[[4]], sprintf("%s, weights %s, n = %d, decreasing = %s",
                                        cs[[1]], cs[[2]], cs[[3]], cs[[4]]),
                 seed = 310L + k, exact = cs[[5]])
  }
  for (kind in c("all_ties", "steps_at_boundaries", "zero_one_per_piece", "sawtooth_down",
                 "zero_straddle")) {
    a <- th_adversarial(kind, 131073, seed = 320L)
    run_vjp_case(a$y, a$w, FALSE, paste(kind, "n = 131073"), seed = 321L,
                 exact = isTRUE(a$exact) || kind == "all_ties")
  }
  skip_unless_many_threads()
})

# A ragged batch mixing long and short problems, their values of several
# families, weights with zeros.
th_batch <- function(lens, seed) {
  fams <- c("trend", "cliff", "sawtooth", "integers", "huge")
  parts <- lapply(seq_along(lens), function(k) {
    n <- lens[k]
    f <- fams[(k - 1L) %% length(fams) + 1L]
    y <- if (f == "cliff") gen_family("cliff", n, seed + k)
         else if (f == "sawtooth") th_adversarial("sawtooth", max(n, 2L), seed + k)$y[seq_len(n)]
         else th_values(f, max(n, 2L), seed + k)[seq_len(n)]
    w <- .ref_with_seed(seed + k, exp(runif(n, 0, 8)) * (runif(n) > 0.05))
    if (!any(w > 0)) w[n] <- 1
    list(y = y, w = w)
  })
  list(y = unlist(lapply(parts, `[[`, "y")), w = unlist(lapply(parts, `[[`, "w")),
       g = rep(sprintf("p%02d", seq_along(lens)), lens))
}

# The batch fit and gradient of (y, w, groups g) on 1, 2 (and 4, 8)
# threads, each identical to the loop of single fits.
check_batch <- function(y, w, g, dec, label) {
  gr <- .ref_with_seed(1L, rnorm(length(y)))
  threads <- intersect(thread_counts(), c(1L, 2L, 4L, 8L))
  fit <- same_on_threads(function() isotonic(y, w, decreasing = dec, groups = g, device = "cpu"),
                         label, threads)
  v <- same_on_threads(function() isotonic_vjp(y, gr, w, decreasing = dec, groups = g,
                                               device = "cpu"),
                       paste(label, "vjp"), threads)
  for (l in unique(g)) {
    i <- which(g == l)
    lab <- sprintf("%s, problem %s (n = %d)", label, l, length(i))
    expect_same_bits(fit[i], isotonic(y[i], w[i], decreasing = dec, device = "cpu"), lab,
                     "its fit alone")
    vl <- isotonic_vjp(y[i], gr[i], w[i], decreasing = dec, device = "cpu")
    expect_same_bits(v$y[i], vl$y, paste(lab, "vjp d/dy"), "its gradient alone")
    expect_same_bits(v$weights[i], vl$weights, paste(lab, "vjp d/dw"), "its gradient alone")
  }
}

test_that("batches mixing long and short problems fit each as it fits alone, on any threads", {
  b <- th_batch(c(65537, 3, 131072, 1000, 65535, 1, 98305, 2), seed = 400L)
  check_batch(b$y, b$w, b$g, FALSE, "ragged batch")
  # the columns of a matrix: long ones, one weight per row
  y <- cbind(th_values("trend", 65537, 410L), gen_family("cliff", 65537, 411L),
             th_values("integers", 65537, 412L))
  wr <- th_weights("exp", 65537, 413L)
  fit <- same_on_threads(function() isotonic(y, wr, decreasing = TRUE, device = "cpu"),
                         "matrix", intersect(thread_counts(), c(1L, 2L, 4L, 8L)))
  for (j in seq_len(ncol(y))) {
    expect_same_bits(fit[, j], isotonic(y[, j], wr, decreasing = TRUE, device = "cpu"),
                     sprintf("matrix column %d", j), "its fit alone")
  }
  skip_unless_many_threads()
})

# ---------------------------------------------------------------------------
# Off CRAN: every family, weighting and input at every size, both ways, and
# against the higher-precision reference.

test_that("every family x size x direction, weights rotating, on 1 to 8 threads", {
  skip_on_cran()
  for (i in seq_along(th_sizes)) {
    for (j in seq_along(th_families)) {
      for (dec in c(FALSE, TRUE)) {
        wk <- th_weight_kinds[(i + j + dec) %% length(th_weight_kinds) + 1L]
        th_family_case(th_families[j], wk, th_sizes[i], dec, seed = 1000L * i + j)
      }
    }
  }
  skip_unless_many_threads()
})

test_that("every input against the pieces at every size, both ways, on 1 to 8 threads", {
  skip_on_cran()
  for (i in seq_along(th_sizes)) {
    for (j in seq_along(th_adversarial_kinds)) {
      for (dec in c(FALSE, TRUE)) {
        th_adversarial_case(th_adversarial_kinds[j], th_sizes[i], dec,
                            seed = 2000L * i + j, mirror = !dec)
      }
    }
  }
  skip_unless_many_threads()
})

test_that("a problem of 1e6 elements (30 pieces) on 1 to 8 threads", {
  skip_on_cran()
  n <- th_size_large
  for (j in seq_along(th_families)) {
    wk <- th_weight_kinds[j %% length(th_weight_kinds) + 1L]
    th_family_case(th_families[j], wk, n, dec = j %% 2L == 0L, seed = 3000L + j)
  }
  for (kind in c("cliff_end", "cliff_start", "sawtooth", "sawtooth_down", "sawtooth_shifted",
                 "steps_off_by_one", "all_ties", "zero_straddle", "zero_middle_piece",
                 "zero_one_per_piece", "overflow", "overflow_span")) {
    th_adversarial_case(kind, n, dec = FALSE, seed = 3100L)
  }
  y <- th_values("integers", n, 3200L)
  w <- th_weights("int0", n, 3200L)
  run_vjp_case(y, w, FALSE, "integers, n = 1e6", seed = 3201L, exact = TRUE)
  skip_unless_many_threads()
})

# From 2^23 values, on more than one thread, the fit's pages are faulted in
# first and the stretches where every value is a block of its own are stored
# past the cache (split.c): rising rows, rows that pool only at the pieces'
# ends, both directions, and the scaled path.
th_stream_cases <- function(n, kinds, seed) {
  y <- gen_family("increasing", n, seed)
  label <- sprintf("increasing, n = %d", n)
  z <- run_case(y, NULL, FALSE, label, check = FALSE)
  expect_same_bits(z, y, label, "y")
  with_threads(2L, expect_same_bits(isotonic(rev(y), decreasing = TRUE, device = "cpu"),
                                    rev(y), paste(label, "reversed, decreasing, 2 threads"),
                                    "rev(y)"))
  for (kind in kinds) th_adversarial_case(kind, n, dec = kind == "sawtooth", seed = seed + 1L)
}

test_that("rows written past the cache (its threshold lowered): the same fit on 1 to 8 threads, and right", {
  was <- gpuiso:::test_stream_min(65536)
  on.exit(gpuiso:::test_stream_min(was), add = TRUE)
  th_stream_cases(300001, c("rising_ties_at_boundaries", "rising_dip_mid", "cliff_start",
                            "sawtooth", "rising_huge"), 3300L)
  skip_unless_many_threads()
})

test_that("a row long enough to be written past the cache: the same fit on 1 to 8 threads", {
  skip_on_cran()
  th_stream_cases(2^23 + 5, "rising_dip_mid", 3310L)
  skip_unless_many_threads()
})

test_that("the fit and the gradient's blocks match the higher-precision reference", {
  skip_on_cran()
  for (j in seq_along(th_families)) {
    f <- th_families[j]
    n <- th_sizes[(j - 1L) %% length(th_sizes) + 1L]
    # not weights spanning 1e-300 to 1e300: ref_pava's scaling takes the
    # smallest to zero
    kinds <- setdiff(th_weight_kinds, "span")
    wk <- kinds[j %% length(kinds) + 1L]
    dec <- j %% 2L == 1L
    y <- th_values(f, n, 4000L + j)
    w <- th_weights(wk, n, 4000L + j)
    lab <- sprintf("%s, weights %s, n = %d, decreasing = %s", f, wk, n, dec)
    z <- isotonic(y, w, decreasing = dec, device = "cpu")
    r <- ref_pava(y, w, decreasing = dec)
    expect_close_scaled(z, r$fit, 1e-12, paste(lab, "vs ref_pava"))
    # (values spanning 1e-300 to 1e300 lose their smallest to zero there too)
    if (f != "wide") expect_identical(n_blocks(z), n_blocks(r$fit), label = paste(lab, "blocks"))
    # the forward pass's blocks, through the gradient, are the exact ones
    if (f != "near_max") { # its d/dw lies beyond double's range
      g <- gen_family("gaussian", n, seed = 4100L + j)
      v <- same_on_threads(function() isotonic_vjp(y, g, w, decreasing = dec, device = "cpu"),
                           paste(lab, "vjp"))
      e <- vjp_on_partition(y, z, g, w, r$starts)
      expect_lte(max(abs(v$y - e$y)), 1e-9 * max(1, abs(e$y)), label = paste(lab, "vjp"))
    }
  }
  skip_unless_many_threads()
})
