# The tests over the whole range of doubles (idr(), its scores,
# iso_calibrate(), the pooling of tied scores, reliability_diagram()):
# weights from the smallest subnormal to DBL_MAX in any mix, covariates,
# outcomes and thresholds at +-DBL_MAX. References in exact rational
# arithmetic ('gmp'), rounded to the nearest double.

big <- .Machine$double.xmax
tiny <- 2^-1074 # 5e-324

# The double nearest to each element of a bigq vector (ties to even), +-Inf
# beyond the range: independent of C's and gmp's own conversions (mpq_get_d
# truncates).
q_to_double <- function(q) {
  vapply(seq_along(q), function(i) q1_to_double(q[i]), 0)
}

q1_to_double <- function(q) {
  if (q == 0) return(0)
  neg <- q < 0
  if (neg) q <- -q
  two <- gmp::as.bigq(2)
  e <- gmp::sizeinbase(gmp::numerator(q), 2) - gmp::sizeinbase(gmp::denominator(q), 2)
  while (q >= two^e) e <- e + 1
  while (q < two^(e - 1)) e <- e - 1 # now 2^(e-1) <= q < 2^e
  t <- max(e - 53, -1074)            # the spacing of the doubles there
  N <- q / two^t
  K <- gmp::as.bigz(floor(N))
  r <- N - K
  half <- gmp::as.bigq(1, 2)
  if (r > half || (r == half && as.integer(K %% 2) == 1L)) K <- K + 1
  v <- as.double(K) * 2^t # exact: K <= 2^53, the product on the grid
  if (neg) -v else v
}

# Antitonic (non-increasing) weighted least squares in bigq: pool adjacent
# violators on values v with weights w (lists of bigq scalars).
antitonic_q <- function(v, w) {
  num <- list(); den <- list(); len <- integer(0)
  for (i in seq_along(v)) {
    num[[length(num) + 1L]] <- v[[i]] * w[[i]]
    den[[length(den) + 1L]] <- w[[i]]
    len <- c(len, 1L)
    while (length(len) >= 2L) {
      b <- length(len)
      if (num[[b - 1L]] / den[[b - 1L]] >= num[[b]] / den[[b]]) break
      num[[b - 1L]] <- num[[b - 1L]] + num[[b]]
      den[[b - 1L]] <- den[[b - 1L]] + den[[b]]
      len[b - 1L] <- len[b - 1L] + len[b]
      num[[b]] <- NULL; den[[b]] <- NULL; len <- len[-b]
    }
  }
  rep(lapply(seq_along(len), function(b) num[[b]] / den[[b]]), len)
}
