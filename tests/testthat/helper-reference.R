# Independent reference tools for the test suite.
#
# Nothing here calls gpuiso: these are the oracles the package is checked
# against. Base R + stats only; Iso is used only behind requireNamespace().

# ---------------------------------------------------------------------------
# Error-free floating-point building blocks (vectorised).
# R has no fma(), so products are split with Dekker's/Veltkamp's method; the
# callers keep magnitudes well inside the range where the split cannot
# overflow (see .ref_pow2_scale()).

.ref_split <- function(a) {
  c <- 134217729 * a # 2^27 + 1
  hi <- c - (c - a)
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
# [2^-256, 2^256]; 0 otherwise. Keeps every double-double product below finite.
.ref_pow2_scale <- function(x) {
  m <- if (length(x)) max(abs(x)) else 0
  if (m > 0 && (m > 2^256 || m < 2^-256)) -.ref_exponent(m) else 0L
}

# ---------------------------------------------------------------------------
# Pool adjacent violators: stack of blocks, sums kept as double-double.
#
# Merge rule: the previous block is pooled with the current one when its mean
# is >= the current mean (ties pooled). The cheap double comparison decides
# unless the means are within a few ulps; then the sign of
# S_A W_B - S_B W_A is evaluated with error-free products, and anything within
# ~1e-24 (relative to sum w|y|) counts as a tie.

.ref_pava_core <- function(ph, pl, w, aw) {
  m <- length(ph)
  Sh <- numeric(m); Sl <- numeric(m)
  Wh <- numeric(m); Wl <- numeric(m)
  A <- numeric(m); st <- integer(m)
  eps4 <- 4 * .Machine$double.eps
  tiny <- 1e-24
  K <- 134217729
  t <- 0L
  for (i in seq_len(m)) {
    sh <- ph[i]; sl <- pl[i]; wh <- w[i]; wl <- 0; a <- aw[i]; s0 <- i
    while (t > 0L) {
      ah <- Sh[t]; al <- Sl[t]; vh <- Wh[t]; vl <- Wl[t]; aa <- A[t]
      mA <- (ah + al) / (vh + vl)
      mB <- (sh + sl) / (wh + wl)
      dm <- mA - mB
      marg <- eps4 * (abs(mA) + abs(mB)) + tiny * (aa / vh + a / wh)
      if (dm < -marg) break
      if (dm <= marg) {
        # Near tie: D = S_A * W_B - S_B * W_A with two exact hi*hi products.
        cc <- K * ah; x1 <- cc - (cc - ah); x2 <- ah - x1
        cc <- K * wh; y1 <- cc - (cc - wh); y2 <- wh - y1
        p1 <- ah * wh
        e1 <- ((x1 * y1 - p1) + x1 * y2 + x2 * y1) + x2 * y2
        cc <- K * sh; x1 <- cc - (cc - sh); x2 <- sh - x1
        cc <- K * vh; y1 <- cc - (cc - vh); y2 <- vh - y1
        p2 <- sh * vh
        e2 <- ((x1 * y1 - p2) + x1 * y2 + x2 * y1) + x2 * y2
        d <- p1 - p2; bb <- d - p1; de <- (p1 - (d - bb)) + (-p2 - bb)
        D <- d + ((e1 - e2 + de) + (al * wh + ah * wl) - (sl * vh + sh * vl))
        if (D < -tiny * (aa * wh + a * vh)) break
      }
      # Pool block t into the current block (double-double additions).
      s <- ah + sh; bb <- s - ah
      lo <- ((ah - (s - bb)) + (sh - bb)) + al + sl
      sh <- s + lo; sl <- lo - (sh - s)
      s <- vh + wh; bb <- s - vh
      lo <- ((vh - (s - bb)) + (wh - bb)) + vl + wl
      wh <- s + lo; wl <- lo - (wh - s)
      a <- a + aa; s0 <- st[t]
      t <- t - 1L
    }
    t <- t + 1L
    Sh[t] <- sh; Sl[t] <- sl; Wh[t] <- wh; Wl[t] <- wl; A[t] <- a; st[t] <- s0
  }
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

# Spread a fit of the positive-weight points to all points: a zero-weight
# point copies the nearest positive-weight point on its left (the first
# positive-weight point if there is none).
.ref_fill_zero_weights <- function(fit_pos, pos, n) {
  fit <- numeric(n)
  fit[pos] <- fit_pos
  src <- integer(n)
  src[pos] <- pos
  src <- cummax(src)
  src[src == 0L] <- pos[1L]
  fit[src]
}

.ref_result <- function(fit) {
  n <- length(fit)
  starts <- if (n) c(TRUE, fit[-1L] != fit[-n]) else logical(0)
  list(fit = fit, starts = starts, nblocks = sum(starts))
}

ref_pava <- function(y, w = NULL, decreasing = FALSE) {
  y <- as.double(y)
  n <- length(y)
  w <- .ref_prep(y, w)
  if (n == 0L) return(.ref_result(numeric(0)))
  if (decreasing) {
    r <- ref_pava(-y, w, FALSE)
    return(.ref_result(-r$fit))
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
  b <- .ref_pava_core(ph, pl, wp, abs(ph))
  # Block means as a double-double quotient (S_h + S_l) / (W_h + W_l), then
  # rounded once: accurate even when a block's values spread far wider than
  # its mean (where an m0 + mean-residual refinement would lose digits).
  q <- b$Sh / b$Wh
  tp <- .ref_two_prod(q, b$Wh)
  mean <- q + (((b$Sh - tp$p) - tp$e + b$Sl) - q * b$Wl) / b$Wh
  mean <- .ref_mul_pow2(mean, -sy)
  fit_pos <- rep.int(mean, diff(c(b$start, length(pos) + 1L)))
  .ref_result(.ref_fill_zero_weights(fit_pos, pos, n))
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
    # everything above ~[0, 1]; the last point pulls the whole vector down
    cliff = if (n) c(cumsum(runif(n - 1L, 0.5, 1.5)) / n, -2 * n) else numeric(0),
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
