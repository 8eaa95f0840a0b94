# The GPU engine's transfers between R's memory and the device: pieces
# through pinned staging buffers, float32 conversion on the host, stage
# times. GPU tests: they skip where no GPU engine can run.

# Sets the largest piece of a transfer (bytes; 0 = the default) for `code`.
with_piece <- function(bytes, code) {
  old <- .Call(gpuiso:::ffi_gpu_set_piece, bytes)
  on.exit(.Call(gpuiso:::ffi_gpu_set_piece, old), add = TRUE)
  force(code)
}

# Consecutive index slices of at most `size` covering 1..n (doubles, for
# long vectors).
split_slices <- function(n, size) {
  starts <- seq(1, n, by = size)
  lapply(starts, function(a) seq(a, min(n, a + size - 1)))
}

# Resident set size of this process in bytes (Linux), NA elsewhere.
rss_bytes <- function() {
  f <- "/proc/self/status"
  if (!file.exists(f)) return(NA_real_)
  l <- grep("^VmRSS:", readLines(f), value = TRUE)
  as.numeric(gsub("[^0-9]", "", l)) * 1024
}

test_that("results do not depend on how the transfers are cut into pieces", {
  skip_if_not(gpu_available())
  set.seed(31)
  # ragged problems whose ends fall anywhere in the pieces, long and short
  sizes <- c(1, 5000, 1023, 1025, 70001, 3, 0, 262147, 33, 2)
  n <- sum(sizes)
  g <- rep(seq_along(sizes), sizes)
  y <- rnorm(n) + rep(seq_along(sizes), sizes) * 0.01 * seq_len(n) / n
  w <- runif(n, 0.1, 2)
  w0 <- w
  w0[sample(n, 500)] <- 0
  y_in <- y + 0
  for (prec in c("double", "single")) for (ww in list(NULL, w, w0)) for (dec in c(FALSE, TRUE)) {
    lab <- sprintf("%s, weights %s, decreasing %s", prec,
                   if (is.null(ww)) "none" else if (any(ww == 0)) "with zeros" else "positive",
                   dec)
    big <- isotonic(y, ww, decreasing = dec, groups = g, device = "gpu", precision = prec)
    small <- with_piece(4096, isotonic(y, ww, decreasing = dec, groups = g, device = "gpu",
                                       precision = prec))
    odd <- with_piece(3 * 2^15, isotonic(y, ww, decreasing = dec, groups = g, device = "gpu",
                                         precision = prec))
    expect_identical(small, big, label = lab)
    expect_identical(odd, big, label = lab)
    cpu <- isotonic(y, ww, decreasing = dec, groups = g, device = "cpu", precision = prec)
    expect_close(big, cpu, if (prec == "double") 1e-10 else 1.2e-7, label = lab)
    if (prec == "single") expect_identical(big, f32(big), label = lab)
    for (b in seq_along(sizes)) {
      expect_true(is_monotone(big[g == b], dec), label = paste(lab, "problem", b))
    }
  }
  expect_identical(y, y_in) # never modified
})

test_that("a matrix and one long vector cross in pieces and agree with the CPU", {
  skip_if_not(gpu_available())
  set.seed(32)
  m <- matrix(rnorm(2e6) + seq_len(2000) / 500, 2000)
  for (prec in c("double", "single")) {
    tol <- if (prec == "double") 1e-10 else 1.2e-7
    expect_close(isotonic(m, device = "gpu", precision = prec),
                 isotonic(m, device = "cpu", precision = prec), tol, prec)
    y <- cumsum(rnorm(3e6))
    expect_close(isotonic(y, device = "gpu", precision = prec),
                 isotonic(y, device = "cpu", precision = prec), tol, prec)
    t <- gpu_timings()
    bytes <- if (prec == "double") 8 else 4
    expect_identical(t$bytes_in, bytes * 3e6)
    expect_identical(t$bytes_out, bytes * 3e6)
    expect_gte(t$total + 1e-9, t$copy_in + t$copy_out + t$prefault)
    expect_gt(t$copy_in, 0)
    expect_gt(t$convert, 0)
  }
  # the backward pass, isoreg() and their stage times
  y <- rnorm(1e6)
  g <- rnorm(1e6)
  expect_close(isotonic_vjp(y, g, device = "gpu")$y, isotonic_vjp(y, g, device = "cpu")$y,
               1e-10, "vjp")
  expect_identical(gpu_timings()$bytes_in, (8 + 8 + 8 + 1) * 1e6) # y, fit, grad, starts
  x <- runif(1e6)
  fg <- isoreg(x, y, device = "gpu")
  fc <- isoreg(x, y, device = "cpu")
  expect_close(fitted(fg), fitted(fc), 1e-10, "isoreg")
  expect_identical(gpu_timings()$bytes_in, 16 * 1e6) # x and y
})

test_that("the staging buffers are kept, reported and given back", {
  skip_if_not(gpu_available())
  gpu_release()
  expect_identical(gpu_info()$pinned, 0)
  y <- rnorm(3e6)
  isotonic(y, device = "gpu")
  held <- gpu_info()$pinned
  expect_gt(held, 0)
  expect_lte(held, 4 * 8 * 2^20) # four buffers of at most 8 MiB
  isotonic(y, device = "gpu")
  expect_identical(gpu_info()$pinned, held)
  expect_null(gpu_release())
  expect_identical(gpu_info()$pinned, 0)
  expect_identical(gpu_info()$workspace, 0)
})

test_that("an interrupt during a transfer stops the call; nothing is left behind", {
  skip_if_not(gpu_available())
  set.seed(33)
  y <- rnorm(2^22)
  gpu_release()
  ref <- isotonic(y, device = "gpu")
  held <- gpu_info()$pinned
  gpu_release()
  used <- gpu_used_bytes() # the CUDA context, no workspace
  isotonic(y, device = "gpu")
  # the engine looks every 2^20 elements copied: four looks on the way in,
  # four on the way out
  for (k in c(1, 2, 5, 7)) {
    expect_identical(with_interrupt_at(k, isotonic(y, device = "gpu")), "stopped",
                     label = paste("look", k))
    expect_identical(gpu_info()$pinned, held)
    expect_identical(isotonic(y, device = "gpu"), ref)
  }
  expect_identical(with_interrupt_at(2, isotonic(y, device = "gpu", precision = "single")),
                   "stopped")
  expect_identical(with_interrupt_at(2, isotonic_vjp(y, y, device = "gpu")), "stopped")
  expect_identical(with_interrupt_at(2, isoreg(runif(2^22), y, device = "gpu")), "stopped")
  expect_identical(isotonic(y, device = "gpu"), ref)
  expect_identical(gpu_info()$pinned, held)
  # nothing allocated outside the workspace stays behind
  gpu_release()
  expect_lte(gpu_used_bytes(), used + 16 * 2^20)
})

test_that("out of device memory leaves no workspace and no pinned memory", {
  skip_if_not(gpu_available())
  isotonic(rnorm(1e6), device = "gpu")
  expect_gt(gpu_info()$pinned, 0)
  on.exit(full_device(FALSE), add = TRUE)
  full_device(TRUE)
  expect_error(isotonic(rnorm(1e6), device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  expect_identical(gpu_info()$pinned, 0)
  expect_identical(gpu_info()$workspace, 0)
  full_device(FALSE)
  y <- rnorm(1e6)
  expect_close(isotonic(y, device = "gpu"), isotonic(y, device = "cpu"), 1e-10)
})

test_that("device and host memory stay flat over 10,000 calls", {
  skip_if_not(gpu_available())
  set.seed(34)
  call <- function(i) {
    n <- 2 * (25 + i %% 1000)
    y <- rnorm(n)
    switch(i %% 5L + 1L,
           isotonic(y, device = "gpu"),
           isotonic(y, runif(n), device = "gpu", precision = "single"),
           isotonic(matrix(y, ncol = 2)[, 1:2], device = "gpu"),
           isotonic_vjp(y, y, device = "gpu")$y,
           tryCatch(isotonic(c(y, NA), device = "gpu"), error = function(e) 0))
  }
  # first every kind of call at its largest, so that the workspace and the
  # staging are at their final sizes, then enough calls for R's heap to settle
  for (i in 999 + 1:5) call(i)
  for (i in 1:1000) call(i)
  gc()
  dev0 <- gpu_used_bytes()
  pin0 <- gpu_info()$pinned
  rss0 <- rss_bytes()
  for (i in 1:10000) z <- call(i)
  gc()
  expect_lte(gpu_used_bytes() - dev0, 16 * 2^20)
  expect_identical(gpu_info()$pinned, pin0)
  # a leak of a staging buffer, a plan or a result per call would be
  # gigabytes here
  if (!is.na(rss0)) expect_lte(rss_bytes() - rss0, 100 * 2^20)
})

test_that("a vector longer than 2^31 elements crosses and fits (opt-in: 40 GB of memory)", {
  skip_if_not(gpu_available())
  skip_if_not(identical(Sys.getenv("GPUISO_TEST_LONG"), "true"),
              "set GPUISO_TEST_LONG=true (needs about 40 GB of host memory)")
  n <- 2^31 + 2^21 + 6
  # pairs (k + 1, k) in runs of 2^20: each run pools to k + 1/2, and the
  # runs increase. Built and checked in slices, to hold only y and the fit.
  slices <- split_slices(n, 2^27)
  y <- numeric(n)
  for (s in slices) y[s] <- (s - 1) %/% 2^20 + (s %% 2)
  fit <- isotonic(y, device = "gpu")
  expect_identical(length(fit), n)
  expect_identical(gpu_timings()$bytes_in, 8 * n)
  wrong <- 0
  for (s in slices) wrong <- wrong + sum(fit[s] != (s - 1) %/% 2^20 + 0.5)
  expect_identical(wrong, 0)
  i <- c(1, 2, 2^20, 2^20 + 1, 2^31 - 1, 2^31, 2^31 + 1, n - 1, n)
  expect_identical(fit[i], (i - 1) %/% 2^20 + 0.5)
})
