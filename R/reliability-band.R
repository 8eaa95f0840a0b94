# Resampled bands of a CORP reliability curve (src/core/bands.c): the
# pooled points of reliability_diagram() and their CORP fit; `type`
# "consistency" draws outcomes from the forecasts themselves (calibration
# assumed), "confidence" from the CORP fit. The generator is seeded by
# two uniforms of R's RNG, so set.seed() fixes the band, on either
# engine: the GPU (src/cuda/bands.cu) draws the same resamples, and hands
# the band to the CPU where its counts would not hold the draws. Returns
# the lower and upper bounds at each distinct forecast, each resample's
# miscalibration (MCB) and the `device` that drew them.
corp_band <- function(pooled, fit, type, level, resamples, device = "cpu") {
  u <- pooled$score
  n <- length(pooled$run_of)
  p0 <- if (type == "consistency") u else fit
  seed <- stats::runif(2)
  probs <- band_probs(level)
  b <- on_device(device,
    .Call(ffi_gpu_corp_bands, u, p0, pooled$weight, n, resamples, probs, seed,
          resolve_threads()),
    .Call(ffi_corp_bands, u, p0, pooled$weight, n, resamples, probs, seed,
          resolve_threads()))
  # NaN in C where no resample reaches a forecast: NA, as quantile() says
  b$lower[is.nan(b$lower)] <- NA_real_
  b$upper[is.nan(b$upper)] <- NA_real_
  b
}

# The engine of a band of `resamples` resamples of n pairs: the GPU where
# `device` asks for it, or where it is "auto", the GPU can be used and
# there are at least band_gpu_min_draws draws in all
# (options(gpuiso.band_gpu_min_draws =) overrides it).
band_device <- function(device, n, resamples, call) {
  resolve_device(device, n * resamples, call,
                 min_n = gpu_min_n("gpuiso.band_gpu_min_draws", band_gpu_min_draws))
}

# On the H200 host, 1e3 forecasts x 100 resamples (1e5 draws) took 1.6 ms
# on the GPU against 4.1 ms on 16 threads (bench/reliability-bands-RESULTS.md).
band_gpu_min_draws <- 2^16

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
