# The differential test against exact rational arithmetic (test-exact.R):
# an exact reference for every weighted fit of the package, built on gmp's
# bigq rationals, random small problems drawn from the ends of double's
# range, and the check of the package's results against the reference.
#
# Nothing here calls gpuiso except the runners (exact_run_*()), which call
# the exported functions and nothing else.
#
# The reference. Every double is a rational (an integer times a power of
# two); gmp::as.bigq() converts it exactly (mpq_set_d; test-exact.R checks
# this on subnormals and on DBL_MAX). A weighted isotonic problem is given
# by its points' sums S_i (of w y) and W_i (of w): for isotonic() a point is
# an element (S = w y, W = w); for isoreg() and iso_calibrate() a run of tied
# x or scores; for idr() a distinct covariate value at one threshold (S =
# the weight with y <= t, W = the weight). Points of zero weight take no
# part, and then take the value of the nearest positive-weight point to
# their right in the problem (of the last one when none is to their right),
# the convention of ?isotonic. The fit of the positive-weight points is the
# min-max formula of isotonic regression,
#   z_i = max_{s <= i} min_{t >= i} M(s, t),   M(s, t) = S(s..t) / W(s..t),
# computed exactly, vectorised over all problems with the same number of
# positive-weight points (for n <= 8 that is at most 36 interval means and
# 36 comparisons each). Blocks are the runs of equal exact values: pooling
# on equal means, as the package pools.
#
# The accuracy rule (the engine's): a fitted value f of a block with exact
# mean m passes when
#   |f - m| <= 2 ulp(m) + 2^-100 * sum_block(w |y|) / sum_block(w),
# ulp(m) = 2^(floor(log2 |m|) - 52) for normal m and 2^-1074 below 2^-1022,
# evaluated exactly. A true result beyond double's range (|m| >= 2^1024 -
# 2^970, what rounds to Inf) must be an error whose class has "overflow" in
# it (and inherits "gpuiso_error"). Output must also be exactly monotone.

exact_available <- function() requireNamespace("gmp", quietly = TRUE)

`%||%` <- function(a, b) if (is.null(a)) b else a

# ---------------------------------------------------------------------------
# Small exact tools.

.q <- function(x) gmp::as.bigq(as.double(x))
.q0 <- function(n) gmp::as.bigq(numeric(n))

# The same conversion built by hand from the double's integer mantissa and
# its exponent (the scalings by powers of two are exact, in two halves so
# that none overflows), to check gmp::as.bigq() with.
.q_parts <- function(x) {
  out <- .q0(length(x))
  nz <- which(x != 0)
  if (!length(nz)) return(out)
  v <- x[nz]
  e <- pmax(floor(log2(abs(v))), -1022) - 52 # the exponent of the last mantissa bit
  mant <- vapply(seq_along(v), function(i) .ref_mul_pow2(v[i], -e[i]), 1)
  # log2() can round up to the next integer just below a power of two
  low <- abs(mant) < 2^52 & e > -1074
  e[low] <- e[low] - 1
  mant[low] <- vapply(which(low), function(i) .ref_mul_pow2(v[i], -e[i]), 1)
  stopifnot(all(mant == trunc(mant)), all(abs(mant) < 2^53))
  two <- gmp::as.bigz(2)
  for (i in seq_along(v)) {
    out[nz[i]] <- if (e[i] >= 0) gmp::as.bigq(gmp::as.bigz(mant[i]) * two^e[i])
                  else gmp::as.bigq(gmp::as.bigz(mant[i]), two^(-e[i]))
  }
  out
}

# Elementwise min and max of bigq vectors of one length.
.qmin <- function(a, b) {
  sel <- as.logical(b < a)
  if (any(sel)) a[sel] <- b[sel]
  a
}
.qmax <- function(a, b) {
  sel <- as.logical(b > a)
  if (any(sel)) a[sel] <- b[sel]
  a
}

# Sums of X (bigq) over runs: `start[i]` TRUE where a run begins (the first
# element starts one). Returns the sum of each run (length sum(start)).
.qrunsum <- function(X, start) {
  n <- length(start)
  if (!n) return(.q0(0))
  cs <- cumsum(X)
  s <- which(start)
  e <- c(s[-1L] - 1L, n)
  tot <- cs[e]
  has_prev <- s > 1L
  if (any(has_prev)) tot[has_prev] <- tot[has_prev] - cs[s[has_prev] - 1L]
  tot
}

# The same sums spread back to every element of the run.
.qblocksum <- function(X, start) .qrunsum(X, start)[cumsum(start)]

# The largest magnitude that rounds to a finite double: |m| < 2^1024 - 2^970.
.q_beyond <- function() .q(2^1023) * 2 - .q(2^970)

# ulp(m) as bigq for representable m (rounding-to-power-of-two corrected).
.qulp <- function(m) {
  d <- abs(as.double(m))
  e <- suppressWarnings(floor(log2(d)))
  e[d < 2^-1022] <- -1022 # subnormals, and 0 (whose log2 is -Inf)
  e[e > 1023] <- 1023
  p <- .q(2^e)
  low <- as.logical(abs(m) < p) & e > -1022
  e[low] <- e[low] - 1
  .q(2^(e - 52))
}

# Check doubles f against exact values m (bigq), with the rule's slack
# `slack` (bigq, the 2^-100 A / W term or more) and `ulps` ulps. Returns a
# list: ok (logical per value), overflow (the exact value is beyond
# double's range), dev (the deviation in ulps of m, double, for reports).
.exact_check <- function(f, m, slack, ulps = 2) {
  n <- length(f)
  ok <- rep(FALSE, n)
  dev <- rep(Inf, n)
  over <- rep(FALSE, n)
  if (!n) return(list(ok = ok, overflow = over, dev = dev, near = over))
  # A fast pass in doubles: gmp's as.double() truncates, so d is within one
  # ulp of m (and no farther from 0); f equal to d or next to it is within
  # 2 ulp(m). The rest is decided exactly.
  d <- as.double(m)
  big <- !is.finite(d) | abs(d) >= .dmax
  if (any(big)) over[big] <- as.logical(abs(m[big]) >= .q_beyond())
  # within the rule's slack of the overflow threshold either answer is
  # right: +-DBL_MAX or the overflow error
  near <- rep(FALSE, n)
  if (any(big)) near[big] <- as.logical(abs(m[big]) + slack[big] * 2 >= .q_beyond())
  edge <- near & is.finite(f) & abs(f) == .dmax
  over[edge] <- FALSE
  # a slack wider than the gap to double's range lets a finite value be
  # right too: an exact value beyond it, from sums that cancel below what
  # double-double carries (terms of 1e308 with 1e-300 beside them), may be
  # computed as a finite one within the rule
  wide <- which(over & is.finite(f))
  if (length(wide)) {
    inside <- as.logical(abs(.q(f[wide]) - m[wide]) <= .qulp(m[wide]) * ulps + slack[wide])
    over[wide[inside]] <- FALSE
    edge[wide[inside]] <- TRUE
  }
  ad <- abs(d)
  ud <- ifelse(ad < 2^-1022, 2^-1074, 2^(floor(log2(pmax(ad, 2^-1022))) - 52))
  fast <- is.finite(f) & !over & !big & abs(f - d) <= ud
  ok[fast | edge] <- TRUE
  dev[fast | edge] <- 0
  rest <- which(is.finite(f) & !over & !fast & !edge)
  if (length(rest)) {
    mf <- m[rest]
    u <- .qulp(mf)
    err <- abs(.q(f[rest]) - mf)
    ok[rest] <- as.logical(err <= u * ulps + slack[rest])
    dev[rest] <- as.double(err / u)
  }
  list(ok = ok, overflow = over, dev = dev, near = near)
}

.two100 <- function() .q(2^-100)

# ---------------------------------------------------------------------------
# The exact fit.

# S, W: bigq vectors of the points' sums, `prob` the problem of each point
# (contiguous runs, numbered 1..P), `dec` one direction per problem. Every
# problem must hold a positive W. Returns list(z = exact fitted values,
# start = block starts (logical), bad = problems with no positive weight).
exact_fit <- function(S, W, prob, dec) {
  N <- length(prob)
  if (!N) return(list(z = .q0(0), start = logical(0)))
  P <- max(prob)
  decp <- as.logical(dec[prob])
  Sg <- S
  if (any(decp)) Sg[decp] <- -S[decp]
  pos <- as.logical(W > 0)
  z <- .q0(N)
  gi <- which(pos)
  pp <- prob[pos]
  m <- tabulate(pp, nbins = P)
  if (any(m == 0L)) stop("exact_fit: a problem has no positive weight")
  for (mm in sort(unique(m))) {
    sel <- m[pp] == mm
    idx <- matrix(gi[sel], nrow = mm)
    # gmp's `[` costs time in the length of what it indexes: take the
    # group's points once, in the order point 1 of every problem, point 2,
    # ..., and slice that
    ord <- as.vector(t(idx))
    P1 <- ncol(idx)
    Sgrp <- Sg[ord]
    Wgrp <- W[ord]
    Sk <- lapply(seq_len(mm), function(k) Sgrp[seq.int((k - 1L) * P1 + 1L, length.out = P1)])
    Wk <- lapply(seq_len(mm), function(k) Wgrp[seq.int((k - 1L) * P1 + 1L, length.out = P1)])
    # prefix sums CS[[k + 1]] = S_1 + ... + S_k
    CS <- vector("list", mm + 1L)
    CW <- vector("list", mm + 1L)
    CS[[1L]] <- .q0(ncol(idx))
    CW[[1L]] <- .q0(ncol(idx))
    for (k in seq_len(mm)) {
      CS[[k + 1L]] <- CS[[k]] + Sk[[k]]
      CW[[k + 1L]] <- CW[[k]] + Wk[[k]]
    }
    M <- function(s, t) (CS[[t + 1L]] - CS[[s]]) / (CW[[t + 1L]] - CW[[s]])
    zk <- vector("list", mm)
    for (s in seq_len(mm)) {
      L <- NULL
      for (i in mm:s) {
        L <- if (is.null(L)) M(s, i) else .qmin(M(s, i), L)
        zk[[i]] <- if (s == 1L) L else .qmax(zk[[i]], L)
      }
    }
    z[ord] <- do.call(c, zk)
  }
  # zero weights: the next positive-weight point's value, or the last one's
  zero <- which(!pos)
  if (length(zero)) {
    key <- ifelse(pos, seq_len(N), N + 1L)
    nxt <- stats::ave(key, prob, FUN = function(u) rev(cummin(rev(u))))
    lastpos <- integer(P)
    lastpos[pp] <- gi # the last assignment per problem wins: the last positive
    src <- ifelse(nxt[zero] <= N, nxt[zero], lastpos[prob[zero]])
    z[zero] <- z[src]
  }
  if (any(decp)) z[decp] <- -z[decp]
  first <- c(TRUE, prob[-1L] != prob[-N])
  start <- first
  if (N > 1L) start <- first | c(TRUE, as.logical(z[-1L] != z[-N]))
  list(z = z, start = start)
}

# The rule's slack per point: 2^-100 * A / W of its block (A = sum of w |y|).
.exact_slack <- function(A, W, start) {
  .qblocksum(A, start) / .qblocksum(W, start) * .two100()
}

# ---------------------------------------------------------------------------
# Random problems from the ends of double's range.

.dmax <- .Machine$double.xmax

# Magnitudes by kind. Each draws k values; the pools hold the named extremes
# and a random value of the kind.
.exact_mag <- list(
  moderate = function(k) sample(c(runif(k, 0.01, 10), 0.1, 1 / 3, 2 / 3, 1, 2, 10), k, TRUE),
  int = function(k) as.double(sample(1:4, k, TRUE)),
  zero = function(k) rep(0, k),
  subnormal = function(k) sample(c(5e-324, 1e-323, 3 * 2^-1074, 2^-1060, 2^-1023,
                                   runif(2) * 2^-1022), k, TRUE),
  tiny = function(k) sample(c(1e-300, 1e-200, 1e-162, 2^-1022, 3e-308,
                              runif(2, 1, 10) * 10^-runif(2, 150, 307)), k, TRUE),
  huge = function(k) sample(c(1e300, 1e307, 1e308, .dmax, .dmax / 3, 8.98846567431158e307,
                              runif(2, 1, 1.79) * 10^runif(2, 150, 307)), k, TRUE)
)

# n values: kinds from `kinds` (a subset drawn per problem), signs by
# `signs` ("+", "-", "mixed"), some exact ties.
.exact_values <- function(n, kinds, signs = "mixed", ties = 0.3) {
  kk <- sample(kinds, n, TRUE)
  v <- numeric(n)
  for (k in unique(kk)) v[kk == k] <- .exact_mag[[k]](sum(kk == k))
  if (signs == "-") v <- -v
  if (signs == "mixed") v <- v * sample(c(-1, 1), n, TRUE)
  if (n > 1L && runif(1) < ties) {
    i <- sample.int(n, sample.int(n - 1L, 1L))
    v[i] <- v[sample.int(n, 1L)]
  }
  v
}

.exact_pick_kinds <- function(pool) {
  if (runif(1) < 0.15) return("moderate")
  sample(pool, sample.int(3L, 1L))
}

# Weights: NULL, or kinds from the pool (zero among them), at least one
# positive; some problems span the whole range in one problem.
.exact_weights <- function(n, null_p = 0.15) {
  if (runif(1) < null_p) return(NULL)
  kinds <- if (runif(1) < 0.15) c(sample(c("subnormal", "tiny"), 1L), "huge")
           else .exact_pick_kinds(c("int", "moderate", "zero", "subnormal", "tiny", "huge"))
  w <- abs(.exact_values(n, kinds, signs = "+", ties = 0.2))
  if (!any(w > 0)) w[sample.int(n, 1L)] <- abs(.exact_values(1L, c("moderate", "subnormal", "tiny", "huge"), "+"))
  w
}

.y_kinds <- c("moderate", "int", "zero", "subnormal", "tiny", "huge")

# A problem for isotonic() and isotonic_vjp(): y, weights, decreasing (and
# grad when `grad`).
exact_problem_iso <- function(nmax = 8L, grad = FALSE) {
  n <- sample.int(nmax, 1L)
  y <- .exact_values(n, .exact_pick_kinds(.y_kinds),
                     sample(c("+", "-", "mixed"), 1L, prob = c(0.3, 0.2, 0.5)))
  p <- list(y = y, w = .exact_weights(n), decreasing = runif(1) < 0.5)
  if (grad) p$grad <- .exact_values(n, .exact_pick_kinds(.y_kinds), "mixed")
  p
}

# Abscissae with ties (x of isoreg(), scores, the covariate of idr()),
# sometimes at the ends of the range.
.exact_x <- function(n) {
  x <- if (runif(1) < 0.7) as.double(sample.int(max(1L, ceiling(n * 0.75)), n, TRUE))
       else .exact_values(n, .exact_pick_kinds(.y_kinds), "mixed", ties = 0.5)
  x
}

exact_problem_isoreg <- function(nmax = 8L) {
  n <- sample.int(nmax, 1L)
  list(x = .exact_x(n),
       y = .exact_values(n, .exact_pick_kinds(.y_kinds),
                         sample(c("+", "-", "mixed"), 1L, prob = c(0.3, 0.2, 0.5))),
       w = .exact_weights(n), decreasing = runif(1) < 0.5)
}

# Outcomes in [0, 1]: 0/1, or probabilities including the extremes.
.exact_unit <- function(n) {
  if (runif(1) < 0.4) return(as.double(sample(0:1, n, TRUE)))
  sample(c(0, 1, 5e-324, 2^-1060, 1e-300, 1e-200, 2^-1022, 1 - 2^-53, 0.5, 0.1,
           runif(3)), n, TRUE)
}

exact_problem_calibrate <- function(nmax = 8L) {
  n <- 1L + sample.int(nmax - 1L, 1L)
  list(x = .exact_x(n), y = .exact_unit(n), w = .exact_weights(n))
}

exact_problem_reliability <- function(nmax = 8L) {
  n <- sample.int(nmax, 1L)
  x <- sample(c(0, 1, 5e-324, 2^-1060, 1e-300, 2^-1022, 1 - 2^-53, 0.5, 0.25,
                runif(3)), n, TRUE)
  list(x = x, y = .exact_unit(n), w = NULL)
}

exact_problem_idr <- function(nmax = 8L) {
  n <- sample.int(nmax, 1L)
  list(x = .exact_x(n),
       y = .exact_values(n, .exact_pick_kinds(.y_kinds), "mixed", ties = 0.4),
       w = .exact_weights(n))
}

# The kinds of extreme input a problem holds, for the tallies.
exact_tags <- function(p) {
  tg <- character(0)
  mag <- function(v, pre) {
    a <- abs(v[v != 0])
    c(if (any(a < 2^-1022)) paste0(pre, "subnormal"),
      if (any(a >= 2^-1022 & a < 1e-150)) paste0(pre, "tiny"),
      if (any(a > 1e150)) paste0(pre, "huge"))
  }
  tg <- c(tg, mag(p$y, "y_"))
  if (any(p$y > 0) && any(p$y < 0)) tg <- c(tg, "y_mixed_sign")
  if (anyDuplicated(p$y)) tg <- c(tg, "y_ties")
  if (!is.null(p$x)) {
    if (anyDuplicated(p$x)) tg <- c(tg, "x_ties")
    if (any(abs(p$x) > 1e150 | (p$x != 0 & abs(p$x) < 1e-150))) tg <- c(tg, "x_extreme")
  }
  if (!is.null(p$grad)) tg <- c(tg, mag(p$grad, "grad_"))
  if (is.null(p$w)) {
    tg <- c(tg, "w_null")
  } else {
    tg <- c(tg, mag(p$w, "w_"))
    if (any(p$w == 0)) tg <- c(tg, "w_zero")
    wp <- p$w[p$w > 0]
    if (log2(max(wp)) - log2(min(wp)) > 997) tg <- c(tg, "w_span")
  }
  if (!length(intersect(tg, c("y_subnormal", "y_tiny", "y_huge", "w_subnormal",
                              "w_tiny", "w_huge", "grad_subnormal", "grad_tiny",
                              "grad_huge")))) {
    tg <- c(tg, "moderate")
  }
  tg
}

# ---------------------------------------------------------------------------
# Calls and outcomes.

# The engine the runners ask for: "cpu", or GPUISO_EXACT_DEVICE (say "gpu",
# to hold the GPU engine to the same rule).
.exact_device <- function() {
  d <- Sys.getenv("GPUISO_EXACT_DEVICE", "cpu")
  if (nzchar(d)) d else "cpu"
}

# The value of a call, or its error.
.try_call <- function(expr) tryCatch(expr, error = function(e) e)

.is_overflow_error <- function(e) {
  inherits(e, "error") && inherits(e, "gpuiso_error") &&
    any(grepl("overflow", class(e), fixed = TRUE))
}

# Per-problem outcome from its values' checks. `res` is the call's value or
# error; `chk` the .exact_check() of its values (NULL when it errored);
# `mono` whether the output is exactly monotone; `expect_error` a class
# that the call must signal instead (an input error where the input is
# invalid for the function).
.outcome <- function(res, chk, mono = TRUE, expect_error = NULL, over = FALSE,
                     near = FALSE) {
  if (inherits(res, "error")) {
    if (near && .is_overflow_error(res)) return("ok_overflow")
    if (!is.null(expect_error)) {
      return(if (inherits(res, expect_error)) "ok_error" else "wrong_error_class")
    }
    if (over) {
      return(if (.is_overflow_error(res)) "ok_overflow" else
               if (inherits(res, "gpuiso_error")) "overflow_wrong_class" else
                 "overflow_unclassed")
    }
    return(if (inherits(res, "gpuiso_error")) "spurious_error" else
             "spurious_unclassed_error")
  }
  if (!is.null(expect_error)) return("missing_error")
  if (over) return("overflow_missed")
  if (!all(chk$fin)) return("nonfinite")
  if (!all(chk$ok)) return("deviation")
  if (!mono) return("nonmonotone")
  "ok"
}

.bad_outcome <- function(o) !o %in% c("ok", "ok_kkt", "ok_error", "ok_overflow")

# The engine's fit f of one problem p where it differs from the exact one:
# still right when it is the exact fit of the problem perturbed within the
# accuracy rule. Its blocks (the forward pass's start flags) must satisfy
# the optimality conditions of isotonic regression with the rule's slack:
# each value is its block's exact mean (2 ulp + 2^-100 of the block's
# sum w|y| / w), neighbouring means are in order, and no block splits (the
# mean of each proper prefix is not below the block's), up to the tie rule
# (2^-80 of the means) and the 2^-100 terms. A block whose sum cancels to
# below what double-double sums carry (terms of 1e300 with 1e-189 beside
# them) may be decided either way; this says it was decided within that.
.kkt_ok <- function(p, f) {
  y <- as.double(p$y)
  w <- if (is.null(p$w)) rep(1, length(y)) else as.double(p$w)
  st <- as.logical(.Call(gpuiso:::ffi_isotonic_fit, y, if (is.null(p$w)) NULL else w,
                         c(0, length(y)), p$decreasing, TRUE, 1L)[[2L]])
  sg <- if (p$decreasing) -1 else 1
  qy <- .q(y)
  qw <- .q(w)
  .kkt_points_ok(qw * qy * sg, qw, qw * abs(qy), st, f * sg)
}

# The conditions of .kkt_ok() on points given by their exact sums S (of
# w y, the direction's sign applied), W (of w) and A (of w |y|), with the
# engine's block starts `st` and fitted values `f` (sign applied).
.kkt_points_ok <- function(S, W, A, st, f) {
  t100 <- .q(2^-100)
  t80 <- .q(2^-78)
  blocks <- split(seq_along(st), cumsum(st))
  stat <- function(i) {
    Wi <- sum(W[i])
    if (Wi == 0) return(NULL)
    list(m = sum(S[i]) / Wi, a = sum(A[i]) / Wi)
  }
  prev <- NULL
  for (b in blocks) {
    B <- stat(b)
    if (is.null(B)) return(FALSE)
    fv <- .q(f[b])
    if (any(abs(fv - B$m) > .qulp(B$m) * 2 + t100 * B$a)) return(FALSE)
    if (!is.null(prev) && B$m < prev$m - t80 * (abs(B$m) + abs(prev$m)) - t100 * (B$a + prev$a))
      return(FALSE)
    for (k in seq_len(length(b) - 1L)) {
      P <- stat(b[seq_len(k)])
      if (is.null(P)) next
      if (P$m < B$m - t80 * (abs(B$m) + abs(P$m)) - t100 * (B$a + P$a)) return(FALSE)
    }
    prev <- B
  }
  TRUE
}

# isoreg()'s fit r of problem p (x, y, w) where it differs from the exact
# one: .kkt_points_ok() on its distinct x, tied points pooled as the exact
# reference pools them, with the blocks that r reports (r$blocks, from and
# to as values of x).
.kkt_ok_isoreg <- function(p, r) {
  ref <- .exact_pooled_ref(list(p), p$decreasing)
  sg <- if (p$decreasing) -1 else 1
  blk <- findInterval(ref$x, r$blocks$from)
  st <- c(TRUE, diff(blk) != 0L)
  .kkt_points_ok(ref$S * sg, ref$W, ref$A, st,
                 as.double(r$yf)[!duplicated(ref$point)] * sg)
}

# Problems whose outcome is "deviation" but whose fit passes .kkt_ok() (or
# `ok`: .kkt_ok_isoreg() for isoreg()).
.kkt_rescue <- function(oc, problems, res, ok = function(p, r) .kkt_ok(p, as.double(r))) {
  for (i in which(oc$outcome == "deviation")) {
    if (ok(problems[[i]], res[[i]])) oc$outcome[i] <- "ok_kkt"
  }
  oc
}

# Check concatenated values `f` (NA where the problem's call errored)
# against exact `z` with slack; returns per-value ok / overflow / finite /
# dev.
.check_values <- function(f, z, slack, ulps = 2) {
  ff <- f
  ff[is.na(ff)] <- NaN
  chk <- .exact_check(ff, z, slack, ulps)
  chk$fin <- is.finite(ff)
  chk
}

# Outcomes per problem from per-value checks. `pid` the problem of each
# value, `res` a list of the calls' values or errors (one per problem),
# `mono` logical per problem.
.outcomes <- function(res, chk, pid, mono, expect_error = NULL) {
  P <- length(res)
  okv <- tapply(chk$ok, factor(pid, seq_len(P)), all)
  fin <- tapply(chk$fin, factor(pid, seq_len(P)), all)
  ovr <- tapply(chk$overflow, factor(pid, seq_len(P)), any)
  nea <- tapply(chk$near %||% rep(FALSE, length(pid)), factor(pid, seq_len(P)), any)
  dev <- tapply(ifelse(chk$ok, 0, chk$dev), factor(pid, seq_len(P)), max)
  out <- character(P)
  for (i in seq_len(P)) {
    o <- list(ok = isTRUE(okv[[i]]) || is.na(okv[[i]]), fin = isTRUE(fin[[i]]) || is.na(fin[[i]]))
    out[i] <- .outcome(res[[i]], o, mono[[i]],
                       expect_error = expect_error[[i]],
                       over = isTRUE(ovr[[i]]), near = isTRUE(nea[[i]]))
  }
  list(outcome = out, dev = as.vector(dev))
}

# ---------------------------------------------------------------------------
# Runners: generate `n` problems with `seed`, call the package, check.
# Each returns a data frame: fun, id, n, outcome, dev (ulps), tags, call
# (a reproducer), message.

.fmt <- function(v) {
  if (is.null(v)) return("NULL")
  s <- sprintf("%.17g", v)
  for (d in 16:15) {
    t <- sprintf(paste0("%.", d, "g"), v)
    short <- as.double(t) == v
    s[short] <- t[short]
  }
  s[v == .dmax] <- ".Machine$double.xmax"
  s[v == -.dmax] <- "-.Machine$double.xmax"
  if (length(v) == 1L) s else paste0("c(", paste(s, collapse = ", "), ")")
}

.frame <- function(fun, problems, oc, callfun, msgs, extra = "") {
  bad <- .bad_outcome(oc$outcome)
  calls <- rep("", length(problems))
  calls[bad] <- paste0(vapply(problems[bad], callfun, ""), extra)
  data.frame(fun = fun, id = seq_along(problems),
             n = vapply(problems, function(p) length(p$y), 1L),
             outcome = oc$outcome, dev = oc$dev,
             tags = vapply(problems, function(p) paste(exact_tags(p), collapse = " "), ""),
             call = calls, message = msgs, stringsAsFactors = FALSE)
}

.msg <- function(r) if (inherits(r, "error")) conditionMessage(r) else ""

.monotone <- function(v, dec) {
  v <- v[!is.na(v)]
  if (dec) !is.unsorted(rev(v)) else !is.unsorted(v)
}

# Exact fits of isotonic problems (list of y, w, decreasing): z, slack, pid.
.exact_iso_ref <- function(problems) {
  n <- vapply(problems, function(p) length(p$y), 1L)
  pid <- rep(seq_along(problems), n)
  y <- unlist(lapply(problems, `[[`, "y"))
  w <- unlist(lapply(problems, function(p) if (is.null(p$w)) rep(1, length(p$y)) else p$w))
  qy <- .q(y)
  qw <- .q(w)
  dec <- vapply(problems, `[[`, NA, "decreasing")
  fit <- exact_fit(qw * qy, qw, pid, dec)
  list(z = fit$z, start = fit$start, pid = pid, qy = qy, qw = qw,
       slack = .exact_slack(qw * abs(qy), qw, fit$start))
}

isotonic_call <- function(p, extra = "") {
  sprintf("isotonic(%s%s%s%s)", .fmt(p$y),
          if (!is.null(p$w)) paste0(", weights = ", .fmt(p$w)) else "",
          if (p$decreasing) ", decreasing = TRUE" else "", extra)
}

# `problems`: given problems instead of n random ones; `batch`: how many of
# them also run as matrix columns and as groups of a ragged batch.
exact_run_isotonic <- function(n, seed = 1L, problems = NULL, batch = n) {
  problems <- problems %||% .ref_with_seed(seed, lapply(seq_len(n), function(i) exact_problem_iso()))
  ref <- .exact_iso_ref(problems)
  res <- lapply(problems, function(p) .try_call(
    isotonic(p$y, p$w, decreasing = p$decreasing, device = .exact_device())))
  f <- unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    if (inherits(r, "error") || length(r) != length(problems[[i]]$y))
      rep(NA_real_, length(problems[[i]]$y)) else as.double(r)
  }))
  chk <- .check_values(f, ref$z, ref$slack)
  mono <- vapply(seq_along(problems), function(i) {
    r <- res[[i]]
    inherits(r, "error") || .monotone(r, problems[[i]]$decreasing)
  }, NA)
  oc <- .kkt_rescue(.outcomes(res, chk, ref$pid, mono), problems, res)
  out <- .frame("isotonic", problems, oc, isotonic_call, vapply(res, .msg, ""))
  # the batch paths: the same problems as matrix columns and as groups
  nb <- min(batch, length(problems))
  if (nb == 0L) return(out)
  sub <- if (nb < length(problems)) .exact_iso_ref(problems[seq_len(nb)]) else ref
  rbind(out, .exact_isotonic_batches(problems[seq_len(nb)], sub, "matrix"),
        .exact_isotonic_batches(problems[seq_len(nb)], sub, "groups"))
}

# Batches of up to 40 problems of one direction (and, for a matrix, one
# length and weights given or not). A batch that errors is re-run problem
# by problem (a one-column matrix, or one group) so that the error is
# attributed.
.exact_isotonic_batches <- function(problems, ref, how) {
  P <- length(problems)
  n <- vapply(problems, function(p) length(p$y), 1L)
  dec <- vapply(problems, `[[`, NA, "decreasing")
  wnull <- vapply(problems, function(p) is.null(p$w), NA)
  key <- if (how == "matrix") paste(n, dec, wnull) else paste(dec, wnull)
  f <- rep(NA_real_, length(ref$pid))
  res <- vector("list", P)
  mono <- rep(TRUE, P)
  at <- split(seq_along(ref$pid), ref$pid)
  run <- function(ids) {
    ps <- problems[ids]
    d <- ps[[1L]]$decreasing
    if (how == "matrix") {
      Y <- matrix(unlist(lapply(ps, `[[`, "y")), ncol = length(ids))
      W <- if (!is.null(ps[[1L]]$w)) matrix(unlist(lapply(ps, `[[`, "w")), ncol = length(ids))
      r <- .try_call(isotonic(Y, W, decreasing = d, device = .exact_device()))
      if (!inherits(r, "error")) r <- as.vector(r)
      r
    } else {
      len <- vapply(ps, function(p) length(p$y), 1L)
      g <- rep(seq_along(ids), len)
      N <- length(g)
      # groups interleaved (order within each group kept) for half the batches
      pos <- seq_len(N)
      if (ids[1L] %% 2L == 0L) pos <- stats::ave(sample.int(N), g, FUN = sort)
      yy <- numeric(N); yy[pos] <- unlist(lapply(ps, `[[`, "y"))
      ww <- NULL
      if (!is.null(ps[[1L]]$w)) { ww <- numeric(N); ww[pos] <- unlist(lapply(ps, `[[`, "w")) }
      gg <- integer(N); gg[pos] <- g
      r <- .try_call(isotonic(yy, ww, decreasing = d, groups = paste0("g", gg), device = .exact_device()))
      if (!inherits(r, "error")) r <- as.vector(r)[pos]
      r
    }
  }
  for (grp in split(seq_len(P), key)) {
    for (ids in split(grp, ceiling(seq_along(grp) / 40))) {
      r <- run(ids)
      if (inherits(r, "error")) {
        for (i in ids) {
          ri <- run(i)
          res[[i]] <- ri
          if (!inherits(ri, "error")) {
            f[at[[i]]] <- ri
            mono[i] <- .monotone(ri, problems[[i]]$decreasing)
          }
        }
      } else {
        cum <- 0L
        for (i in ids) {
          k <- length(problems[[i]]$y)
          v <- r[cum + seq_len(k)]
          cum <- cum + k
          f[at[[i]]] <- v
          res[[i]] <- v
          mono[i] <- .monotone(v, problems[[i]]$decreasing)
        }
      }
    }
  }
  chk <- .check_values(f, ref$z, ref$slack)
  oc <- .kkt_rescue(.outcomes(res, chk, ref$pid, mono), problems, res)
  extra <- if (how == "matrix") " [as a one-column matrix: isotonic(as.matrix(y), ...)]"
           else " [as one group of a batch: isotonic(y, groups = ...)]"
  .frame(paste0("isotonic[", how, "]"), problems, oc, isotonic_call,
         vapply(res, .msg, ""), extra)
}

vjp_call <- function(p) {
  sprintf("isotonic_vjp(%s, grad = %s%s%s)", .fmt(p$y), .fmt(p$grad),
          if (!is.null(p$w)) paste0(", weights = ", .fmt(p$w)) else "",
          if (p$decreasing) ", decreasing = TRUE" else "")
}

# isotonic_vjp(): dy = w G / W and dw = (y - z) G / W per block, exact z.
# The exact vjp of isotonic problems with `grad`: dy, dw (bigq, one per
# element), their slacks, and the problem of each element.
.exact_vjp_ref <- function(problems) {
  ref <- .exact_iso_ref(problems)
  # The backward pass works on the blocks of the forward pass (its start
  # flags), so it is checked on them, with their exact means: where two
  # means are within the forward pass's tie rule (2^-80) that partition may
  # pool what the exact one splits, a difference isotonic()'s own check
  # covers through the fitted values.
  ref$start <- unlist(lapply(problems, function(p) {
    st <- .Call(gpuiso:::ffi_isotonic_fit, as.double(p$y),
                if (is.null(p$w)) NULL else as.double(p$w),
                c(0, length(p$y)), p$decreasing, TRUE, 1L)[[2L]]
    as.logical(st)
  }))
  ref$z <- .qblocksum(ref$qw * ref$qy, ref$start) / .qblocksum(ref$qw, ref$start)
  g <- .q(unlist(lapply(problems, `[[`, "grad")))
  G <- .qblocksum(g, ref$start)
  GA <- .qblocksum(abs(g), ref$start)
  W <- .qblocksum(ref$qw, ref$start)
  A <- .qblocksum(ref$qw * abs(ref$qy), ref$start)
  t100 <- .two100()
  # slack: the sums' 2^-100 terms propagated (G, and for dw the fit's own
  # tolerance times G / W)
  ztol <- .qulp(ref$z) * 2 + A / W * t100
  list(dy = ref$qw * G / W, dw = (ref$qy - ref$z) * G / W,
       slack_dy = ref$qw * GA / W * t100,
       slack_dw = abs(G / W) * ztol + abs(ref$qy - ref$z) * GA / W * t100,
       pid = ref$pid)
}

exact_run_vjp <- function(n, seed = 2L, problems = NULL) {
  problems <- problems %||% .ref_with_seed(seed, lapply(seq_len(n), function(i) exact_problem_iso(grad = TRUE)))
  ref <- .exact_vjp_ref(problems)
  res <- lapply(problems, function(p) .try_call(
    isotonic_vjp(p$y, p$grad, p$w, decreasing = p$decreasing, device = .exact_device())))
  get <- function(el) unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    k <- length(problems[[i]]$y)
    if (inherits(r, "error") || length(r[[el]]) != k) rep(NA_real_, k) else as.double(r[[el]])
  }))
  c1 <- .check_values(get("y"), ref$dy, ref$slack_dy, ulps = 4)
  c2 <- .check_values(get("weights"), ref$dw, ref$slack_dw, ulps = 4)
  chk <- list(ok = c1$ok & c2$ok, fin = c1$fin & c2$fin,
              overflow = c1$overflow | c2$overflow, dev = pmax(c1$dev, c2$dev),
              near = c1$near | c2$near)
  oc <- .outcomes(res, chk, ref$pid, rep(TRUE, length(problems)))
  .frame("isotonic_vjp", problems, oc, vjp_call, vapply(res, .msg, ""))
}

# Points of x (sorted, ties pooled) with their sums: for isoreg(),
# iso_calibrate(), reliability_diagram(). Returns, for all problems
# concatenated in the order of x, the exact fit at each distinct x (z, one
# per distinct x), the slack, the problem of each, and per problem the
# sorted x and the index of each sorted point's distinct x.
.exact_pooled_ref <- function(problems, dec) {
  ord <- lapply(problems, function(p) order(p$x, method = "radix"))
  xs <- unlist(Map(function(p, o) p$x[o], problems, ord))
  ys <- unlist(Map(function(p, o) p$y[o], problems, ord))
  ws <- unlist(Map(function(p, o) if (is.null(p$w)) rep(1, length(o)) else p$w[o],
                   problems, ord))
  n <- vapply(problems, function(p) length(p$x), 1L)
  pid <- rep(seq_along(problems), n)
  N <- length(xs)
  newx <- c(TRUE, xs[-1L] != xs[-N] | pid[-1L] != pid[-N])
  qy <- .q(ys)
  qw <- .q(ws)
  S <- .qrunsum(qw * qy, newx)
  W <- .qrunsum(qw, newx)
  A <- .qrunsum(qw * abs(qy), newx)
  ppid <- pid[newx]
  fit <- exact_fit(S, W, ppid, dec)
  list(z = fit$z, slack = .exact_slack(A, W, fit$start), S = S, W = W, A = A,
       pid = ppid, point = cumsum(newx), sorted_pid = pid, x = xs[newx])
}

isoreg_call <- function(p) {
  sprintf("isoreg(%s, %s%s%s)", .fmt(p$x), .fmt(p$y),
          if (!is.null(p$w)) paste0(", weights = ", .fmt(p$w)) else "",
          if (p$decreasing) ", decreasing = TRUE" else "")
}

exact_run_isoreg <- function(n, seed = 3L, problems = NULL) {
  problems <- problems %||% .ref_with_seed(seed, lapply(seq_len(n), function(i) exact_problem_isoreg()))
  dec <- vapply(problems, `[[`, NA, "decreasing")
  ref <- .exact_pooled_ref(problems, dec)
  res <- lapply(problems, function(p) .try_call(
    isoreg(p$x, p$y, weights = p$w, decreasing = p$decreasing, device = .exact_device())))
  # yf is in the order of x: one value per sorted point
  f <- unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    k <- length(problems[[i]]$y)
    if (inherits(r, "error") || length(r$yf) != k) rep(NA_real_, k) else as.double(r$yf)
  }))
  chk <- .check_values(f, ref$z[ref$point], ref$slack[ref$point])
  mono <- vapply(seq_along(problems), function(i) {
    r <- res[[i]]
    inherits(r, "error") || .monotone(r$yf, problems[[i]]$decreasing)
  }, NA)
  oc <- .kkt_rescue(.outcomes(res, chk, ref$sorted_pid, mono), problems, res,
                    .kkt_ok_isoreg)
  .frame("isoreg", problems, oc, isoreg_call, vapply(res, .msg, ""))
}

calibrate_call <- function(p) {
  sprintf("iso_calibrate(%s, %s%s)", .fmt(p$x), .fmt(p$y),
          if (!is.null(p$w)) paste0(", weights = ", .fmt(p$w)) else "")
}

# iso_calibrate(): the curve's values at the distinct scores; an input error
# where there are fewer than two distinct scores. The curve's `weight`
# column (the summed weights, which can exceed double's range) is checked
# separately: `weight_note` counts where it is not the exact sum (Inf where
# the sum overflows).
exact_run_calibrate <- function(n, seed = 4L, problems = NULL) {
  problems <- problems %||% .ref_with_seed(seed, lapply(seq_len(n), function(i) exact_problem_calibrate()))
  ref <- .exact_pooled_ref(problems, rep(FALSE, length(problems)))
  res <- lapply(problems, function(p) .try_call(
    iso_calibrate(p$x, p$y, weights = p$w, device = .exact_device())))
  m <- tabulate(ref$pid, length(problems))
  f <- unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    if (inherits(r, "error") || nrow(r$curves[[1L]]) != m[i]) rep(NA_real_, m[i])
    else as.double(r$curves[[1L]]$value)
  }))
  chk <- .check_values(f, ref$z, ref$slack)
  mono <- vapply(res, function(r) inherits(r, "error") || .monotone(r$curves[[1L]]$value, FALSE), NA)
  # a summed weight of tied scores beyond the doubles cannot be the curve's
  # `weight`: an overflow error is the right answer there
  big <- tapply(as.logical(abs(ref$W) >= .q_beyond()), factor(ref$pid, seq_along(problems)), any)
  expect <- lapply(seq_along(m), function(i) {
    c(if (m[i] < 2L) "gpuiso_error_input", if (isTRUE(big[[i]])) "gpuiso_error_overflow")
  })
  oc <- .outcomes(res, chk, ref$pid, mono, expect)
  out <- .frame("iso_calibrate", problems, oc, calibrate_call, vapply(res, .msg, ""))
  # the summed weights
  fw <- unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    if (inherits(r, "error") || nrow(r$curves[[1L]]) != m[i]) rep(0, m[i])
    else as.double(r$curves[[1L]]$weight)
  }))
  cw <- .check_values(fw, ref$W, .q0(length(fw)))
  err <- vapply(res, inherits, NA, "error")
  wbad <- tapply(!(cw$ok | (cw$overflow & is.infinite(fw))), ref$pid, any)
  out$weight_note <- as.vector(wbad) & !err
  fill <- out$weight_note & !nzchar(out$call)
  out$call[fill] <- vapply(problems[fill], calibrate_call, "")
  out
}

reliability_call <- function(p) sprintf("reliability_diagram(%s, %s)", .fmt(p$x), .fmt(p$y))

exact_run_reliability <- function(n, seed = 5L, problems = NULL) {
  problems <- problems %||% .ref_with_seed(seed, lapply(seq_len(n), function(i) exact_problem_reliability()))
  ref <- .exact_pooled_ref(problems, rep(FALSE, length(problems)))
  res <- lapply(problems, function(p) .try_call(
    reliability_diagram(p$x, p$y, device = .exact_device())))
  m <- tabulate(ref$pid, length(problems))
  f <- unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    if (inherits(r, "error") || nrow(r$curve) != m[i]) rep(NA_real_, m[i])
    else as.double(r$curve$calibrated)
  }))
  chk <- .check_values(f, ref$z, ref$slack)
  mono <- vapply(seq_along(res), function(i) {
    r <- res[[i]]
    p <- problems[[i]]
    inherits(r, "error") ||
      .monotone(r$curve$calibrated, FALSE) &&
        # the per-forecast values are the curve's at each forecast
        identical(r$calibrated, r$curve$calibrated[match(p$x, r$curve$forecast)])
  }, NA)
  oc <- .outcomes(res, chk, ref$pid, mono)
  .frame("reliability_diagram", problems, oc, reliability_call, vapply(res, .msg, ""))
}

idr_call <- function(p) {
  sprintf("idr(%s, %s%s)", .fmt(p$y), .fmt(p$x),
          if (!is.null(p$w)) paste0(", weights = ", .fmt(p$w)) else "")
}

# The CDF values of an IDR fit as a list, one vector (over the distinct x)
# per threshold, from its blocks.
.idr_values <- function(fit) {
  m <- length(fit$x)
  lapply(seq_along(fit$thresholds), function(k) {
    b <- seq.int(fit$ptr[k] + 1, length.out = fit$ptr[k + 1L] - fit$ptr[k])
    fit$value[b][findInterval(seq_len(m) - 1L, fit$start[b])]
  })
}

# idr(): the CDF at each threshold (the distinct y of positive weight) and
# each distinct x (of positive weight): the antitonic fit of the weight
# with y <= t over the weight at each x. Also exactly monotone in x
# (non-increasing) and over the thresholds (non-decreasing), and 1 at the
# last threshold.
# The exact CDFs of IDR problems (list of y, x, w): z (bigq, in the order
# problem, threshold, distinct x), slack, the problem of each value, and
# per problem c(thresholds, distinct x).
.exact_idr_ref <- function(problems) {
  S <- list()
  spid <- integer(0)
  dims <- vector("list", length(problems))
  for (i in seq_along(problems)) {
    p <- problems[[i]]
    w <- if (is.null(p$w)) rep(1, length(p$y)) else p$w
    keep <- w > 0
    x <- p$x[keep]; y <- p$y[keep]; w <- w[keep]
    xu <- sort(unique(x))
    t <- sort(unique(y))
    dims[[i]] <- c(length(t), length(xu))
    j <- match(x, xu)
    S <- c(S, lapply(t, function(tk) list(j = j, ind = y <= tk, w = w, m = length(xu))))
    spid <- c(spid, rep(i, length(t)))
  }
  m <- vapply(S, `[[`, 1L, "m")
  sub <- rep(seq_along(S), m)
  # per observation and threshold: sub-problem, point, weight, indicator
  obs_sub <- rep(seq_along(S), vapply(S, function(s) length(s$j), 1L))
  obs_j <- unlist(lapply(S, `[[`, "j"))
  obs_w <- unlist(lapply(S, `[[`, "w"))
  obs_i <- unlist(lapply(S, `[[`, "ind"))
  o <- order(obs_sub, obs_j)
  st <- c(TRUE, obs_sub[o][-1L] != obs_sub[o][-length(o)] |
                obs_j[o][-1L] != obs_j[o][-length(o)])
  qw <- .q(obs_w[o])
  Wq <- .qrunsum(qw, st)
  Sq <- .qrunsum(qw * .q(as.double(obs_i[o])), st)
  fit <- exact_fit(Sq, Wq, sub, rep(TRUE, length(S)))
  list(z = fit$z, slack = .exact_slack(Sq, Wq, fit$start), pid = rep(spid, m),
       dims = dims)
}

exact_run_idr <- function(n, seed = 6L, problems = NULL) {
  problems <- problems %||% .ref_with_seed(seed, lapply(seq_len(n), function(i) exact_problem_idr()))
  ref <- .exact_idr_ref(problems)
  dims <- ref$dims
  res <- lapply(problems, function(p) .try_call(idr(p$y, p$x, weights = p$w, device = .exact_device())))
  # the package's values in the same order: problem, threshold, x
  f <- unlist(lapply(seq_along(problems), function(i) {
    r <- res[[i]]
    d <- dims[[i]]
    if (inherits(r, "error") || length(r$thresholds) != d[1L] || length(r$x) != d[2L]) {
      return(rep(NA_real_, d[1L] * d[2L]))
    }
    unlist(.idr_values(r))
  }))
  chk <- .check_values(f, ref$z, ref$slack)
  mono <- vapply(seq_along(problems), function(i) {
    r <- res[[i]]
    if (inherits(r, "error")) return(TRUE)
    v <- .idr_values(r)
    V <- do.call(rbind, v) # thresholds x distinct x
    all(vapply(v, .monotone, NA, dec = TRUE)) &&
      all(apply(V, 2L, .monotone, dec = FALSE)) && all(V[nrow(V), ] == 1)
  }, NA)
  # the summed weight at a covariate value beyond the doubles cannot be the
  # fit's `weight`: an overflow error is the right answer there
  expect <- lapply(problems, function(p) {
    w <- if (is.null(p$w)) rep(1, length(p$x)) else p$w
    tot <- vapply(split(seq_along(p$x), p$x), function(i) as.logical(sum(.q(w[i])) >= .q_beyond()), NA)
    if (any(tot)) "gpuiso_error_overflow"
  })
  oc <- .outcomes(res, chk, ref$pid, mono, expect)
  out <- .frame("idr", problems, oc, idr_call, vapply(res, .msg, ""))
  out
}

# ---------------------------------------------------------------------------
# Reports.

exact_summary <- function(d) {
  bad <- .bad_outcome(d$outcome)
  sprintf(paste("%s: %d problems, %d checked exact, %d within the rule on their own",
                "blocks, %d expected errors, %d wrong (%s)"),
          d$fun[1L], nrow(d), sum(d$outcome == "ok"), sum(d$outcome == "ok_kkt"),
          sum(d$outcome %in% c("ok_error", "ok_overflow")), sum(bad),
          if (any(bad)) paste(names(table(d$outcome[bad])), table(d$outcome[bad]),
                              sep = " ", collapse = ", ") else "none")
}

# The `k` smallest wrong problems of outcomes `d` as reproducible calls, one
# line each with the outcome and the start of the error message.
exact_smallest_wrong <- function(d, k = 10L) {
  bad <- d[.bad_outcome(d$outcome), ]
  bad <- utils::head(bad[order(bad$n, nchar(bad$call)), ], k)
  sprintf("  %s  # %s%s", bad$call, bad$outcome,
          ifelse(nzchar(bad$message), paste0(": ", substr(bad$message, 1L, 300L)), ""))
}

# Failures by kind of extreme input: for each tag, failing / problems.
exact_by_tag <- function(d) {
  tags <- strsplit(d$tags, " ", fixed = TRUE)
  all_tags <- sort(unique(unlist(tags)))
  bad <- .bad_outcome(d$outcome)
  t(vapply(all_tags, function(t) {
    has <- vapply(tags, function(v) t %in% v, NA)
    c(problems = sum(has), wrong = sum(has & bad))
  }, numeric(2)))
}

# A failing problem made smaller: elements dropped, values and weights
# replaced by 1 (or weights by NULL) while the problem still fails in the
# same way. `rerun(p)` returns the outcome of one problem.
exact_shrink <- function(p, rerun, max_steps = 60L) {
  target <- rerun(p)
  if (!.bad_outcome(target)) return(p)
  fails <- function(q) {
    o <- tryCatch(rerun(q), error = function(e) "ok")
    identical(o, target)
  }
  elems <- intersect(c("x", "y", "w", "grad"), names(p))
  steps <- 0L
  repeat {
    changed <- FALSE
    n <- length(p$y)
    if (n > 1L) for (i in seq_len(n)) {
      q <- p
      for (e in elems) if (!is.null(q[[e]])) q[[e]] <- q[[e]][-i]
      if (!is.null(q$w) && !any(q$w > 0)) next
      if (fails(q)) { p <- q; changed <- TRUE; break }
    }
    if (!changed && !is.null(p$w) && fails(replace(p, "w", list(NULL)))) {
      p$w <- NULL; changed <- TRUE
    }
    if (!changed) for (e in elems) {
      if (is.null(p[[e]])) next
      for (i in seq_along(p[[e]])) for (v in c(1, 0, 2)) {
        if (p[[e]][i] == v) next
        q <- p
        q[[e]][i] <- v
        if (!is.null(q$w) && !any(q$w > 0)) next
        if (fails(q)) { p <- q; changed <- TRUE; break }
      }
      if (changed) break
    }
    if (!changed && isTRUE(p$decreasing) && fails(replace(p, "decreasing", FALSE))) {
      p$decreasing <- FALSE; changed <- TRUE
    }
    steps <- steps + 1L
    if (!changed || steps >= max_steps) break
  }
  p
}

# The outcome of one problem of function `fun` ("isotonic", "isotonic_vjp",
# "isoreg", "iso_calibrate", "reliability_diagram", "idr"), for
# exact_shrink().
exact_rerun <- function(fun, p) {
  d <- switch(fun,
    isotonic = exact_run_isotonic(1L, problems = list(p), batch = 0L),
    isotonic_vjp = exact_run_vjp(1L, problems = list(p)),
    isoreg = exact_run_isoreg(1L, problems = list(p)),
    iso_calibrate = exact_run_calibrate(1L, problems = list(p)),
    reliability_diagram = exact_run_reliability(1L, problems = list(p)),
    idr = exact_run_idr(1L, problems = list(p)))
  d$outcome[1L]
}

# Up to `k` small failing calls of a function from outcomes `d` of its
# runner (the problems regenerated from `seed`): failures of different
# kinds first, each shrunk by exact_shrink().
exact_worklist <- function(d, problems, fun, k = 10L) {
  bad <- which(.bad_outcome(d$outcome))
  if (!length(bad)) return(character(0))
  key <- paste(d$outcome[bad], d$tags[bad])
  bad <- bad[order(duplicated(key), d$n[bad])]
  out <- character(0)
  callf <- switch(fun, isotonic = isotonic_call, isotonic_vjp = vjp_call, isoreg = isoreg_call,
                  iso_calibrate = calibrate_call, reliability_diagram = reliability_call, idr = idr_call)
  for (i in bad) {
    p <- exact_shrink(problems[[d$id[i]]], function(q) exact_rerun(fun, q))
    o <- exact_rerun(fun, p)
    line <- sprintf("%s  # %s", callf(p), o)
    if (!line %in% out) out <- c(out, line)
    if (length(out) >= k) break
  }
  out
}
