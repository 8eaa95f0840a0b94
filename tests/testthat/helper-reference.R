# Independent reference tools for the test suite.
#
# Nothing here calls gpuiso: these are the oracles the package is checked
# against. Base R + stats only (Iso::pava, if used by a test, is quadratic on
# inputs that pool a lot: keep it to n <= 1e4).

# ---------------------------------------------------------------------------
# Error-free floating-point building blocks (vectorised).
# R has no fma(), so products are split with Dekker's/Veltkamp's method; the
# callers keep magnitudes well inside the range where the split cannot
# overflow (see .ref_pow2_scale()).

.ref_split <- function(a) {
  s <- 134217729 * a # 2^27 + 1
  hi <- s - (s - a)
  list(hi = hi, lo = a - hi)
}

# a * b == p + e exactly (barring underflow).
.ref_two_prod <- function(a, b) {
  p <- a * b
  sa <- .ref_split(a)
  sb <- .ref_split(b)
  e <- ((sa$hi * sb$hi - p) + sa$hi * sb$lo + sa$lo * sb$hi) + sa$lo * sb$lo
  list(p = p, e = e)
}

# Exponent k with 2^(k-1) <= m < 2^k, and an exact multiplication by 2^s done
# in two halves so that neither factor over- or underflows on its own.
.ref_exponent <- function(m) as.integer(floor(log2(m))) + 1L
.ref_mul_pow2 <- function(x, s) {
  h <- s %/% 2L
  (x * 2^h) * 2^(s - h)
}

# Power-of-two shift that brings max|x| near 1 when it is far outside
# [2^-256, 2^256]; 0 otherwise. Keeps every double-double product finite
# and clear of underflow.
.ref_pow2_scale <- function(x) {
  m <- if (length(x)) max(abs(x)) else 0
  if (m > 0 && (m > 2^256 || m < 2^-256)) -.ref_exponent(m) else 0L
}

# ---------------------------------------------------------------------------
# Pool adjacent violators: stack of blocks, sums kept as double-double.
#
# Merge rule: the top block T is pooled with the incoming block B when its
# mean is >= B's (ties pooled). The cheap double comparison of the means
# decides unless they are within a few ulps; then the sign of
# D = S_T W_B - S_B W_T is evaluated with error-free products, and
# |D| <= 1e-24 (A_T W_B + A_B W_T), A = sum w|y| (= S_T W_B + S_B W_T for
# positive data), counts as a tie. D's own error (dropped lo*lo terms,
# rounding of the lo*hi terms) is ~1e-31 of that bound and the double-double
# sums drift by ~n eps^2 A (5e-27 A at n = 1e5), so every larger difference is
# decided exactly: the partition is the exact one up to 1e-24-ties (checked
# against rational arithmetic). Block means that differ by less than an ulp
# can still round to the same double; ref_pava() reports the partition in
# `starts` regardless. The top block is cached in scalars because array
# access dominates the cost of an interpreted loop.

.ref_pava_core <- function(ph, pl, w, aw, yv) {
  m <- length(ph)
  Sh <- numeric(m); Sl <- numeric(m)
  Wh <- numeric(m); Wl <- numeric(m)
  A <- numeric(m); st <- integer(m)
  eps4 <- 4 * .Machine$double.eps
  tiny <- 1e-24
  K <- 134217729
  u0 <- (eps4 + tiny) * abs(yv)  # margin of a singleton's mean
  t <- 0L        # blocks on the stack; the top one lives in the t* scalars
  dirty <- FALSE # top not yet written to the arrays
  th <- tl <- twh <- twl <- ta <- tm <- tu <- 0; ts <- 0L
  for (i in seq_len(m)) {
    bh <- ph[i]; bl <- pl[i]; bwh <- w[i]; bwl <- 0; ba <- aw[i]
    bm <- yv[i]; bu <- u0[i]; bs <- i
    while (t > 0L) {
      dm <- tm - bm
      marg <- tu + bu
      if (dm < -marg) break
      if (dm <= marg) {
        # Near tie: sign of D = S_T * W_B - S_B * W_T, hi*hi products exact.
        cc <- K * th; x1 <- cc - (cc - th); x2 <- th - x1
        cc <- K * bwh; y1 <- cc - (cc - bwh); y2 <- bwh - y1
        p1 <- th * bwh
        e1 <- ((x1 * y1 - p1) + x1 * y2 + x2 * y1) + x2 * y2
        cc <- K * bh; x1 <- cc - (cc - bh); x2 <- bh - x1
        cc <- K * twh; y1 <- cc - (cc - twh); y2 <- twh - y1
        p2 <- bh * twh
        e2 <- ((x1 * y1 - p2) + x1 * y2 + x2 * y1) + x2 * y2
        d <- p1 - p2; z <- d - p1; de <- (p1 - (d - z)) + (-p2 - z)
        D <- d + ((e1 - e2 + de) + (tl * bwh + th * bwl) - (bl * twh + bh * twl))
        if (D < -tiny * (ta * bwh + ba * twh)) break
      }
      # Pool the top block into B (double-double additions).
      s <- th + bh; z <- s - th
      lo <- ((th - (s - z)) + (bh - z)) + tl + bl
      bh <- s + lo; bl <- lo - (bh - s)
      s <- twh + bwh; z <- s - twh
      lo <- ((twh - (s - z)) + (bwh - z)) + twl + bwl
      bwh <- s + lo; bwl <- lo - (bwh - s)
      ba <- ba + ta; bs <- ts
      bm <- (bh + bl) / (bwh + bwl)
      bu <- eps4 * abs(bm) + tiny * ba / bwh
      t <- t - 1L
      if (t > 0L) {
        th <- Sh[t]; tl <- Sl[t]; twh <- Wh[t]; twl <- Wl[t]; ta <- A[t]; ts <- st[t]
        tm <- (th + tl) / (twh + twl)
        tu <- eps4 * abs(tm) + tiny * ta / twh
      }
      dirty <- FALSE
    }
    if (dirty) {
      Sh[t] <- th; Sl[t] <- tl; Wh[t] <- twh; Wl[t] <- twl; A[t] <- ta; st[t] <- ts
    }
    t <- t + 1L
    th <- bh; tl <- bl; twh <- bwh; twl <- bwl; ta <- ba; tm <- bm; tu <- bu; ts <- bs
    dirty <- TRUE
  }
  if (t > 0L) { Sh[t] <- th; Sl[t] <- tl; Wh[t] <- twh; Wl[t] <- twl; A[t] <- ta; st[t] <- ts }
  k <- seq_len(t)
  list(Sh = Sh[k], Sl = Sl[k], Wh = Wh[k], Wl = Wl[k], start = st[k])
}
.ref_pava_core <- compiler::cmpfun(.ref_pava_core)

# Check y / w the way the references need them; returns w as doubles (all ones
# for NULL).
.ref_prep <- function(y, w) {
  if (!all(is.finite(y))) stop("ref: `y` must be finite")
  n <- length(y)
  if (is.null(w)) return(rep(1, n))
  w <- as.double(w)
  if (length(w) != n) stop("ref: `w` must have length(y)")
  if (!all(is.finite(w)) || any(w < 0)) stop("ref: `w` must be finite, >= 0")
  if (n > 0 && !any(w > 0)) stop("ref: `w` needs a positive element")
  w
}

# Spread a fit of the positive-weight points to all points (api spec): a
# zero-weight point copies the nearest positive-weight point on its RIGHT (the
# last positive-weight point if there is none), as stats' as.stepfun.isoreg
# does (left-continuous steps). `pos` is increasing and non-empty.
.ref_fill_zero_weights <- function(fit_pos, pos, n) {
  m <- length(pos)
  j <- rep.int(m + 1L, n)
  j[pos] <- seq_len(m)
  j <- rev(cummin(rev(j))) # index (in pos) of the next positive at or after
  fit_pos[pmin(j, m)]
}

# Result of ref_pava: the fit plus the block partition. `starts[i]` is TRUE
# where a block of the (exact-arithmetic, ties-pooled) solution begins; a
# zero-weight point belongs to the block of the next positive-weight point
# (trailing ones to the last block). Without `starts` (or for a caller that
# only has a fit) blocks are read off as runs of equal fitted value.
#
# NB: the partition is NOT always the runs of equal fitted value. Two adjacent
# exact blocks whose means differ by less than an ulp can round to the same
# double (e.g. collinear data, means 1.00000000000078 apart by 1.7e-16
# relative): then `fit` is constant across them but `starts` still marks two
# blocks. Use 1 + sum(diff(fit) != 0) when runs of equal value are wanted.
.ref_result <- function(fit, starts = NULL) {
  n <- length(fit)
  if (is.null(starts)) {
    starts <- if (n) c(TRUE, fit[-1L] != fit[-n]) else logical(0)
  }
  list(fit = fit, starts = starts, nblocks = sum(starts))
}

ref_pava <- function(y, w = NULL, decreasing = FALSE) {
  y <- as.double(y)
  n <- length(y)
  w <- .ref_prep(y, w)
  if (n == 0L) return(.ref_result(numeric(0)))
  if (decreasing) {
    r <- ref_pava(-y, w, FALSE)
    r$fit <- -r$fit # same partition
    return(r)
  }
  pos <- which(w > 0)
  sy <- .ref_pow2_scale(y[pos])
  sw <- .ref_pow2_scale(w[pos])
  yp <- .ref_mul_pow2(y[pos], sy)
  wp <- .ref_mul_pow2(w[pos], sw)
  if (all(wp == 1)) {
    ph <- yp; pl <- numeric(length(yp))
  } else {
    tp <- .ref_two_prod(wp, yp); ph <- tp$p; pl <- tp$e
  }
  b <- .ref_pava_core(ph, pl, wp, abs(ph), yp)
  # Block means as a double-double quotient (S_h + S_l) / (W_h + W_l), then
  # rounded once: accurate even when a block's values spread far wider than
  # its mean (where an m0 + mean-residual refinement would lose digits).
  q <- b$Sh / b$Wh
  tp <- .ref_two_prod(q, b$Wh)
  mean <- q + (((b$Sh - tp$p) - tp$e + b$Sl) - q * b$Wl) / b$Wh
  mean <- .ref_mul_pow2(mean, -sy)
  m <- length(pos)
  fit_pos <- rep.int(mean, diff(c(b$start, m + 1L)))
  # Block k >= 2 begins right after the last positive-weight point of block
  # k - 1, so zero-weight points join the block to their right.
  starts <- logical(n)
  starts[c(1L, pos[b$start[-1L] - 1L] + 1L)] <- TRUE
  .ref_result(.ref_fill_zero_weights(fit_pos, pos, n), starts)
}

# ---------------------------------------------------------------------------
# Exhaustive search over the 2^(n-1) contiguous partitions (n <= 10): the
# feasible one (block means monotone) of least weighted SSE. Shares nothing
# with ref_pava beyond the zero-weight convention.

ref_brute <- function(y, w = NULL, decreasing = FALSE) {
  y <- as.double(y)
  n <- length(y)
  w <- .ref_prep(y, w)
  if (n > 10L) stop("ref_brute: n must be <= 10")
  if (n == 0L) return(numeric(0))
  pos <- which(w > 0)
  yp <- y[pos]; wp <- w[pos]; m <- length(pos)
  sgn <- if (decreasing) -1 else 1
  best <- Inf; best_fit <- NULL
  for (mask in seq_len(2^(m - 1L)) - 1L) {
    # bit j of mask set <=> a new block starts at point j + 2
    cut <- c(TRUE, bitwAnd(mask, 2L^(seq_len(m - 1L) - 1L)) > 0L)
    g <- cumsum(cut)
    means <- vapply(split(seq_len(m), g), function(ix) {
      sum(wp[ix] * yp[ix]) / sum(wp[ix])
    }, numeric(1))
    if (any(sgn * diff(means) < 0)) next
    fit <- means[g]
    sse <- sum(wp * (yp - fit)^2)
    if (sse < best) { best <- sse; best_fit <- fit }
  }
  .ref_fill_zero_weights(best_fit, pos, n)
}

# ---------------------------------------------------------------------------
# KKT certificate for an increasing fit z (decreasing by symmetry): with
# r = w (y - z) and P = cumsum(r), need P >= 0, P_n = 0, P_k = 0 where
# z[k+1] > z[k], and z non-decreasing. Prefix violations are scaled by
# sum(w|y|), step-downs by max|y|; the result is the worst of them.

kkt_residual <- function(y, z, w = NULL, decreasing = FALSE, detail = FALSE) {
  y <- as.double(y); z <- as.double(z)
  n <- length(y)
  if (length(z) != n) stop("kkt_residual: length(z) != length(y)")
  w <- .ref_prep(y, w)
  if (decreasing) { y <- -y; z <- -z }
  # Exact power-of-two rescaling (the certificate is scale-free) keeps y - z
  # and the sums finite for inputs near the overflow threshold.
  s <- .ref_pow2_scale(c(y, z))
  y <- .ref_mul_pow2(y, s); z <- .ref_mul_pow2(z, s)
  w <- .ref_mul_pow2(w, .ref_pow2_scale(w))
  tiny <- .Machine$double.xmin
  parts <- c(negative_prefix = 0, total = 0, at_steps = 0, step_down = 0)
  if (n > 0L) {
    if (!all(is.finite(z))) return(if (detail) parts + Inf else Inf)
    P <- cumsum(w * (y - z)) # cumsum accumulates in long double
    scale <- sum(w * abs(y)) + tiny
    up <- which(diff(z) > 0)
    parts["negative_prefix"] <- max(0, -min(P)) / scale
    parts["total"] <- abs(P[n]) / scale
    parts["at_steps"] <- if (length(up)) max(abs(P[up])) / scale else 0
    parts["step_down"] <- max(0, -diff(z)) / (max(abs(y)) + tiny)
  }
  if (detail) parts else max(parts)
}

# ---------------------------------------------------------------------------
# Data families (paper section 7.6) plus "noise". Generators leave the
# caller's RNG state as it was.

families <- function() {
  c("increasing", "decreasing", "constant", "piecewise", "gaussian",
    "randomwalk", "sawtooth", "cliff", "collinear", "offset")
}

.ref_with_seed <- function(seed, expr) {
  had <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  if (had) old <- get(".Random.seed", envir = globalenv())
  on.exit(if (had) assign(".Random.seed", old, envir = globalenv())
          else rm(".Random.seed", envir = globalenv()))
  set.seed(seed)
  expr
}

gen_family <- function(family, n, seed = 1L) {
  n <- as.integer(n)
  t <- (seq_len(n) - 1) / max(1L, n - 1L) # ramp 0..1
  .ref_with_seed(seed, switch(family,
    # increments >= 0.5/n stay far above an ulp, so strictly monotone
    increasing = cumsum(runif(n, 0.5, 1.5)) / n,
    decreasing = rev(cumsum(runif(n, 0.5, 1.5)) / n),
    constant = rep(runif(1, -2, 2), n),
    piecewise = {
      k <- max(1L, n %/% 1000L) + 4L
      levels <- cumsum(rnorm(k))
      levels[pmin(k, floor(t * k) + 1L)] + rnorm(n, sd = 0.25)
    },
    gaussian = rnorm(n),
    randomwalk = cumsum(rnorm(n)),
    sawtooth = ((seq_len(n) - 1L) %% 100L) / 100 + rnorm(n, sd = 0.01),
    # values in ~[0, 1.5], then one point deep enough to pull the whole
    # vector into one block even under exp(U[0, 8]) weights
    cliff = if (n) c(cumsum(runif(n - 1L, 0.5, 1.5)) / n, -1e4 * n) else numeric(0),
    # within ~1e-12 (relative) of a slowly rising line: PAVA meets near-ties
    # that naive running sums can misjudge at large n
    collinear = 1 + 1e-12 * (2 * t + rnorm(n)),
    offset = 1e6 + 3 * t + rnorm(n),
    noise = 3 * t + rnorm(n),
    stop("gen_family: unknown family '", family, "'")
  ))
}

# Weights use a stream offset from `seed`, so data and weights generated with
# the same seed are not correlated.
gen_weights <- function(kind, n, seed = 1L) {
  switch(kind,
    none = NULL,
    uniform = .ref_with_seed(seed + 7919L, runif(n, 0.1, 1.1)),
    exp = .ref_with_seed(seed + 7919L, exp(runif(n, 0, 8))),
    stop("gen_weights: unknown kind '", kind, "'")
  )
}

# ---------------------------------------------------------------------------
# Small tricky inputs for property tests (all finite).

adversarial_inputs <- function() {
  big <- .Machine$double.xmax
  list(
    empty = numeric(0),
    one = 3.5,
    two_up = c(1, 2),
    two_down = c(2, 1),
    two_equal = c(7, 7),
    all_equal = rep(0.1, 9),
    ties = c(1, 3, 3, 2, 2, 4, 4, 4, 0),
    exact_tie_merge = c(3, 1, 2, 2), # {3,1} has mean 2 = next values
    alternating = rep(c(1, -1), 10),
    sorted = as.double(1:20),
    reverse = as.double(20:1),
    spike = c(0, 0, 0, 100, 0, 0, 0),
    dip = c(5, 5, 5, -100, 5, 5, 5),
    cliff_end = c(1:15, -1000),
    huge = c(1e300, -1e300, 1e300, 5e299, -7e299),
    near_max = c(big, big, -big, big / 2), # naive sums overflow
    tiny = c(1e-300, 3e-300, 2e-300, 1e-310, 5e-324),
    mixed_scale = c(1e300, 1, 1e-300, -1e300, 0),
    near_ties = 1 + c(0, 2, 1, 1, -1, 3, 3, 2) * .Machine$double.eps,
    signed_zeros = c(0, -0, 0, -0),
    decimals = c(0.1, 0.2, 0.15, 0.15, 0.3, 0.1), # inexact sums
    integer_type = c(5L, 3L, 4L, 1L, 2L),
    logical_type = c(TRUE, FALSE, TRUE, TRUE, FALSE)
  )
}

# stats::isoreg()'s knot walk, transcribed for any cumulative sum diagram:
# from the last knot k, the first i > k of least slope (Y[i] - Y[k]) /
# (X[i] - X[k]) (points at the same X skipped), O(n^2). Y and X hold the
# diagram's points 0..n as Y[1..n+1]. For weighted and decreasing fits,
# where stats has no fit to compare with.
ref_stats_knots <- function(Y, X = seq_along(Y) - 1) {
  n <- length(Y) - 1L
  knots <- integer()
  known <- 0L
  while (known < n) {
    best <- Inf
    ip <- n
    for (i in (known + 1L):n) {
      dx <- X[i + 1L] - X[known + 1L]
      if (!(dx > 0)) next
      s <- (Y[i + 1L] - Y[known + 1L]) / dx
      if (s < best) {
        best <- s
        ip <- i
      }
    }
    knots <- c(knots, ip)
    known <- ip
  }
  knots
}

# A running sum in double, one addition at a time (cumsum() accumulates in
# long double), as stats::isoreg() sums.
double_cumsum <- function(v) {
  out <- numeric(length(v) + 1L)
  acc <- 0
  for (i in seq_along(v)) {
    acc <- acc + v[i]
    out[i + 1L] <- acc
  }
  out
}
