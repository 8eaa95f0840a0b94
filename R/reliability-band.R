# Resampled bands of a CORP reliability curve (src/core/bands.c): the
# pooled points of reliability_diagram() and their CORP fit; `type`
# "consistency" draws outcomes from the forecasts themselves (calibration
# assumed), "confidence" from the CORP fit. The generator is seeded by
# two uniforms of R's RNG, so set.seed() fixes the band. Returns the
# lower and upper bounds at each distinct forecast and each resample's
# miscalibration (MCB).
corp_band <- function(pooled, fit, type, level, resamples) {
  u <- pooled$score
  n <- length(pooled$run_of)
  p0 <- if (type == "consistency") u else fit
  b <- .Call(ffi_corp_bands, u, p0, pooled$weight, n, resamples,
             band_probs(level), stats::runif(2), resolve_threads())
  # NaN in C where no resample reaches a forecast: NA, as quantile() says
  b$lower[is.nan(b$lower)] <- NA_real_
  b$upper[is.nan(b$upper)] <- NA_real_
  b
}

# The probabilities of a central band of `level`, computed as
# reliabilitydiag computes them.
band_probs <- function(level) 0.5 + c(-0.5, 0.5) * level

# A level strictly between 0 and 1.
check_level <- function(level, call) {
  ok <- is.numeric(level) && !is.object(level) && length(level) == 1L &&
    !is.na(level) && level > 0 && level < 1
  if (!isTRUE(ok)) {
    abort_input(sprintf("`level` must be a number strictly between 0 and 1, not %s.",
                        describe_scalar(level)), call, arg = "level")
  }
  as.numeric(level)
}
