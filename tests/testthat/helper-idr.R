# Shared by the tests of idr(), its inputs, methods, predictions and scores:
# the airquality data, the fitted CDFs as a dense matrix, random data.

aq <- airquality
ozone_na <- is.na(aq$Ozone)

# The blocks expanded into an m x K matrix (for small fits only).
idr_dense <- function(fit) {
  m <- if (is.null(fit$npoints)) length(fit$x) else fit$npoints
  matrix(vapply(seq_along(fit$thresholds), function(k) {
    b <- seq.int(fit$ptr[k] + 1, fit$ptr[k + 1])
    fit$value[b][findInterval(seq_len(m) - 1L, fit$start[b])]
  }, numeric(m)), nrow = m)
}

random_idr_data <- function(n, seed) {
  set.seed(seed)
  x <- sample(round(runif(n %/% 4, 0, 10), 1), n, replace = TRUE) # ties in x
  y <- round(rgamma(n, shape = 1 + x / 3), 1)                     # ties in y
  list(x = x, y = y, w = runif(n, 0.2, 3))
}
