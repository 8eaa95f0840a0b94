# The GPU engine against the CPU engine: the paper's families, ragged
# batches, matrices, zero weights, gradients, isoreg(), bad input, inputs
# left alone, device memory. Every test that needs a GPU skips without one;
# the tests of the last part (precision = "single" on the CPU, "auto",
# errors) run everywhere.

skip_no_gpu <- function() skip_if_not(gpu_available(), "no usable GPU engine here")

# Each family x weighting x direction x precision at length n: the GPU fit
# against the CPU fit of the same (for "single": the same rounded) input.
# double: within 1e-10 of 1 + |z| with the same number of blocks; single:
# within 2e-7, and float32 values; both: exactly monotone.
check_gpu_families <- function(n, seed) {
  for (f in families()) {
    y <- gen_family(f, n, seed = seed)
    for (wk in c("none", "uniform", "exp")) {
      w <- gen_weights(wk, n, seed = seed)
      for (dec in c(FALSE, TRUE)) for (prec in c("double", "single")) {
        lab <- sprintf("family %s, n = %g, weights %s, decreasing = %s, %s",
                       f, n, wk, dec, prec)
        zc <- isotonic(y, w, dec, device = "cpu", precision = prec)
        zg <- isotonic(y, w, dec, device = "gpu", precision = prec)
        if (prec == "double") {
          expect_close(zg, zc, 1e-10, lab)
          expect_identical(n_blocks(zg), n_blocks(zc), label = lab)
        } else {
          expect_close(zg, zc, 2e-7, lab)
          expect_true(identical(zg, f32(zg)), label = paste(lab, "float32 values"))
        }
        expect_true(is_monotone(zg, dec), label = paste(lab, "monotone"))
      }
      rm(w)
    }
    rm(y)
    gc()
  }
}

test_that("GPU equals CPU on the paper's families, n = 1e3", {
  skip_no_gpu()
  check_gpu_families(1e3, seed = 101L)
})

test_that("GPU equals CPU on the paper's families, n = 1e5", {
  skip_no_gpu()
  check_gpu_families(1e5, seed = 102L)
})

test_that("GPU equals CPU on the paper's families, n = 1e7", {
  skip_on_cran()
  skip_no_gpu()
  skip_if(identical(Sys.getenv("GPUISO_TEST_GPU_LARGE"), "false"),
          "GPUISO_TEST_GPU_LARGE=false")
  check_gpu_families(1e7, seed = 103L)
})

# Fits of a ragged batch on both engines, problem by problem monotone.
check_gpu_groups <- function(y, w, groups, dec, lab, tol = 1e-10,
                             precision = "double") {
  zc <- isotonic(y, w, dec, device = "cpu", groups = groups, precision = precision)
  zg <- isotonic(y, w, dec, device = "gpu", groups = groups, precision = precision)
  expect_close(zg, zc, tol, lab)
  mono <- vapply(split(zg, groups), is_monotone, logical(1), decreasing = dec)
  expect_true(all(mono), label = paste(lab, "monotone in every group"))
}

test_that("ragged batches on the GPU equal the CPU engine", {
  skip_no_gpu()
  set.seed(111)
  sizes <- sample(c(rep(c(1, 2, 31, 32, 33), 4), 512, 1000, 1024, 1025, 3000,
                    5000, 70000))
  id <- rep(seq_along(sizes), sizes)
  N <- length(id)
  # a trend within each problem, so that blocks of many lengths appear
  pos <- sequence(sizes)
  y <- rnorm(N) + 3 * pos / sizes[id]
  scattered <- sample(id) # the same sizes, groups interleaved
  for (wk in c("none", "uniform", "exp")) {
    w <- gen_weights(wk, N, seed = 111L)
    for (dec in c(FALSE, TRUE)) {
      yy <- if (dec) -y else y
      lab <- sprintf("ragged, weights %s, decreasing = %s", wk, dec)
      check_gpu_groups(yy, w, id, dec, paste(lab, "contiguous"))
      check_gpu_groups(yy, w, scattered, dec, paste(lab, "non-contiguous"))
      check_gpu_groups(yy, w, id, dec, paste(lab, "single"), tol = 2e-7,
                       precision = "single")
    }
  }
  # character labels, first-appearance order
  lab_chr <- paste0("g", id)
  check_gpu_groups(y, NULL, lab_chr, FALSE, "character labels")
})

test_that("many short problems in one batch on the GPU equal the CPU engine", {
  skip_no_gpu()
  set.seed(112)
  sizes <- sample.int(64L, 20000L, replace = TRUE)
  id <- rep(seq_along(sizes), sizes)
  y <- rnorm(length(id)) + sequence(sizes) / 16
  for (wk in c("none", "exp")) {
    w <- gen_weights(wk, length(id), seed = 112L)
    for (dec in c(FALSE, TRUE)) {
      check_gpu_groups(y, w, id, dec, sprintf("short problems, weights %s, decreasing = %s",
                                              wk, dec))
    }
  }
})

test_that("matrices on the GPU equal column-by-column CPU fits", {
  skip_no_gpu()
  set.seed(113)
  for (shape in list(c(1000, 300), c(33, 2000), c(70000, 3), c(1, 50))) {
    nr <- shape[1]; nc <- shape[2]
    m <- matrix(rnorm(nr * nc) + seq_len(nr) / nr * 2, nr, nc)
    wr <- runif(nr, 0.1, 1.1)
    wm <- matrix(exp(runif(nr * nc, 0, 8)), nr, nc)
    for (dec in c(FALSE, TRUE)) {
      lab <- sprintf("%g x %g matrix, decreasing = %s", nr, nc, dec)
      zg <- isotonic(m, wr, dec, device = "gpu")
      expect_identical(dim(zg), dim(m))
      zc <- vapply(seq_len(nc), function(j) isotonic(m[, j], wr, dec, device = "cpu"),
                   numeric(nr))
      expect_close(zg, zc, 1e-10, paste(lab, "row weights"))
      zg <- isotonic(m, wm, dec, device = "gpu")
      zc <- vapply(seq_len(nc), function(j) isotonic(m[, j], wm[, j], dec, device = "cpu"),
                   numeric(nr))
      expect_close(zg, zc, 1e-10, paste(lab, "matrix weights"))
      expect_true(all(apply(zg, 2, is_monotone, decreasing = dec)), label = lab)
    }
  }
})

test_that("zero weights on the GPU follow the CPU's convention", {
  skip_no_gpu()
  set.seed(114)
  n <- 5000
  y <- rnorm(n) + seq_len(n) / 1000
  w <- runif(n, 0.1, 1.1)
  w[1:10] <- 0              # leading
  w[c(2000:2100, 2500)] <- 0 # interior
  w[(n - 6):n] <- 0         # trailing
  pos <- which(w > 0)
  for (dec in c(FALSE, TRUE)) for (prec in c("double", "single")) {
    lab <- sprintf("zero weights, decreasing = %s, %s", dec, prec)
    zc <- isotonic(y, w, dec, device = "cpu", precision = prec)
    zg <- isotonic(y, w, dec, device = "gpu", precision = prec)
    expect_close(zg, zc, if (prec == "double") 1e-10 else 2e-7, lab)
    # a zero-weight point takes the fit of the next positive-weight point
    # (the last one's at the end), exactly
    expect_identical(zg, fill_right(zg[pos], pos, n), label = lab)
    expect_true(is_monotone(zg, dec), label = lab)
  }
  expect_identical(isotonic(c(5, 1, 9, 2, 3, 0), c(0, 1, 0, 1, 1, 0), device = "gpu"),
                   isotonic(c(5, 1, 9, 2, 3, 0), c(0, 1, 0, 1, 1, 0), device = "cpu"))
  # in batches: zero runs at the ends of problems
  # problems 1..20 (zeros lead), 21..3010 (zeros trail), 3011..3020 (both),
  # 3021..5000 (the trailing zeros of w)
  g <- rep(1:4, c(20, 2990, 10, 1980))
  wz <- w
  wz[c(3001:3010, 3011:3013, 3019:3020)] <- 0
  zc <- isotonic(y, wz, groups = g, device = "cpu")
  zg <- isotonic(y, wz, groups = g, device = "gpu")
  expect_close(zg, zc, 1e-10, "zero weights in a batch")
  # the block starts behind iKnots and the gradient
  fc <- isoreg(y, weights = w, device = "cpu")
  fg <- isoreg(y, weights = w, device = "gpu")
  expect_identical(fg$iKnots, fc$iKnots)
  gr <- rnorm(n)
  vc <- isotonic_vjp(y, gr, w, device = "cpu")
  vg <- isotonic_vjp(y, gr, w, device = "gpu")
  expect_close(vg$y, vc$y, 1e-10, "zero weights, d/dy")
  expect_close(vg$weights, vc$weights, 1e-10, "zero weights, d/dw")
  # the y of a zero weight never reaches the GPU's forward pass but enters
  # d/dw = (y - fit) G / W: one beyond the window goes to the CPU's exact
  # backward pass, which tells an overflow (here -2.9e308) from a value
  y4 <- c(4, -2, 3, -5.992310449541053e307)
  w4 <- c(1 / 3, 0.1, 2, 0)
  g4 <- c(10, 10, 10, -10)
  expect_error(isotonic_vjp(y4, g4, w4, decreasing = TRUE, device = "cpu"),
               class = "gpuiso_error_overflow")
  expect_error(isotonic_vjp(y4, g4, w4, decreasing = TRUE, device = "gpu"),
               class = "gpuiso_error_overflow")
  for (big in c(-5.992310449541053e307, 1e250, -3e-250)) {
    y4[4] <- big
    for (dec in c(FALSE, TRUE)) {
      if (dec && big < -1e300) next
      expect_identical(isotonic_vjp(y4, g4, w4, decreasing = dec, device = "gpu"),
                       isotonic_vjp(y4, g4, w4, decreasing = dec, device = "cpu"),
                       label = sprintf("zero weight, y = %g, decreasing = %s", big, dec))
    }
  }
})

test_that("isotonic_vjp() on the GPU equals the CPU's", {
  skip_no_gpu()
  set.seed(115)
  n <- 1e5
  y <- rnorm(n) + seq_len(n) / n * 5 # continuous: no near-ties between blocks
  g <- rnorm(n)
  for (wk in c("none", "uniform", "exp")) {
    w <- gen_weights(wk, n, seed = 115L)
    for (dec in c(FALSE, TRUE)) {
      yy <- if (dec) -y else y
      lab <- sprintf("vjp, weights %s, decreasing = %s", wk, dec)
      vc <- isotonic_vjp(yy, g, w, dec, device = "cpu")
      vg <- isotonic_vjp(yy, g, w, dec, device = "gpu")
      expect_close(vg$y, vc$y, 1e-10, paste(lab, "d/dy"))
      expect_close(vg$weights, vc$weights, 1e-10, paste(lab, "d/dw"))
    }
  }
  # a ragged batch
  id <- rep(1:5, c(1, 33, 1025, 5000, n - 6059))
  vc <- isotonic_vjp(y, g, gen_weights("exp", n, 116L), groups = id, device = "cpu")
  vg <- isotonic_vjp(y, g, gen_weights("exp", n, 116L), groups = id, device = "gpu")
  expect_close(vg$y, vc$y, 1e-10, "vjp, batch, d/dy")
  expect_close(vg$weights, vc$weights, 1e-10, "vjp, batch, d/dw")
})

test_that("isoreg(device = 'gpu') sorts and fits on the device and gives the CPU's fit", {
  skip_no_gpu()
  set.seed(117)
  for (n in c(1e3, 2e5, 2e6)) {
    xs <- list(round(runif(n) * 2000) / 100,                # many tied x
               runif(n),                                     # unsorted
               sample.int(1000L, n, replace = TRUE) / 1000,  # 1,000 distinct
               seq_len(n) / n)                               # sorted, distinct
    for (k in seq_along(xs)) {
      x <- xs[[k]]
      y <- sin(x) + x / 3 + round(rnorm(n), 1)
      w <- if (k %% 2L) runif(n, 0.1, 1.1)
      for (dec in c(FALSE, TRUE)) {
        yy <- if (dec) -y else y
        lab <- sprintf("isoreg, n = %g, x %d, decreasing = %s", n, k, dec)
        fc <- isoreg(x, yy, w, decreasing = dec, device = "cpu")
        fg <- isoreg(x, yy, w, decreasing = dec, device = "gpu")
        expect_identical(fg$device, "gpu")
        expect_identical(fc$device, "cpu")
        expect_close(fg$yf, fc$yf, 1e-10, lab)
        for (nm in c("iKnots", "ord", "yc", "isOrd", "x", "y", "n_distinct")) {
          expect_identical(fg[[nm]], fc[[nm]], label = paste(lab, nm))
        }
        expect_identical(nrow(fg$blocks), nrow(fc$blocks), label = lab)
        expect_close(fg$blocks$value, fc$blocks$value, 1e-10, lab)
        # tied x have one fitted value
        expect_true(all(tapply(fitted(fg), x, function(v) length(unique(v))) == 1L),
                    label = lab)
      }
    }
  }
  # stats' own fit, through the device
  x <- runif(5e4); y <- round(x + rnorm(5e4), 1)
  s <- stats::isoreg(x, y)
  g <- isoreg(x, y, device = "gpu")
  expect_identical(g$iKnots, s$iKnots)
  expect_identical(g$ord, s$ord)
  expect_identical(g$yc, s$yc)
  expect_close(g$yf, s$yf, 1e-12, "stats through the GPU")
  # what the device does not take goes to the CPU, with the CPU's result
  w0 <- runif(5e4); w0[c(3, 99)] <- 0
  f0 <- isoreg(x, y, w0, device = "gpu")
  expect_identical(f0$device, "cpu")
  expect_identical(f0$yf, isoreg(x, y, w0, device = "cpu")$yf)
  fs <- isoreg(x, y, device = "gpu", precision = "single")
  expect_identical(fs$precision, "single")
  expect_identical(fs$yf, isoreg(x, y, device = "cpu", precision = "single")$yf)
})

test_that("device = 'gpu' never modifies its inputs", {
  skip_no_gpu()
  set.seed(118)
  n <- 3e5
  y <- rnorm(n); y0 <- y + 0
  w <- runif(n); w[c(1, 500, n)] <- 0; w0 <- w + 0
  x <- runif(n); x0 <- x + 0
  gr <- rnorm(n); gr0 <- gr + 0
  g <- sample(letters, n, replace = TRUE); g0 <- c(g, "")[seq_len(n)]
  m <- matrix(rnorm(2e5), 1000); m0 <- m + 0
  z <- isotonic(y, device = "gpu")
  z <- isotonic(y, w, device = "gpu")
  z <- isotonic(y, w, TRUE, device = "gpu", precision = "single")
  z <- isotonic(y, w, groups = g, device = "gpu")
  z <- isotonic(m, device = "gpu")
  z <- isotonic_vjp(y, gr, w, device = "gpu")
  z <- isotonic_vjp(y, gr, w, device = "gpu", precision = "single")
  z <- isoreg(x, y, w, device = "gpu")
  expect_identical(y, y0)
  expect_identical(w, w0)
  expect_identical(x, x0)
  expect_identical(gr, gr0)
  expect_identical(g, g0)
  expect_identical(m, m0)
})

test_that("10,000 small GPU calls do not grow device memory; gpu_release() frees it", {
  skip_no_gpu()
  set.seed(119)
  # each kind of call: plain, weighted, float32, gradient
  small_call <- function(i) {
    y <- runif(100)
    switch(i %% 4L + 1L,
           isotonic(y, device = "gpu"),
           isotonic(y, runif(100), device = "gpu"),
           isotonic(y, device = "gpu", precision = "single"),
           isotonic_vjp(y, runif(100), device = "gpu")$y)
  }
  for (i in 1:10) small_call(i)
  used0 <- gpu_used_bytes()
  for (i in 1:10000) z <- small_call(i)
  used1 <- gpu_used_bytes()
  expect_lte(used1 - used0, 16 * 2^20)
  expect_gt(gpu_info()$workspace, 0)
  expect_null(gpu_release())
  expect_identical(gpu_info()$workspace, 0)
  expect_lte(gpu_used_bytes(), used1)
  # and the engine starts again after a release
  y <- rnorm(5000)
  expect_close(isotonic(y, device = "gpu"), isotonic(y, device = "cpu"), 1e-10,
               "after gpu_release()")
})

# ---------------------------------------------------------------------------
# Everywhere, with or without a GPU.

test_that("without a GPU, device = 'gpu' is a classed error that says why", {
  skip_if(gpu_available(), "a GPU engine is available")
  reason <- gpu_info()$reason
  expect_true(nzchar(reason))
  for (f in list(function() isotonic(runif(10), device = "gpu"),
                 function() isotonic(runif(10), device = "gpu", precision = "single"),
                 function() isotonic(matrix(runif(10), 5), device = "gpu"),
                 function() isoreg(runif(10), device = "gpu"),
                 function() isotonic_vjp(runif(10), runif(10), device = "gpu"))) {
    e <- tryCatch(f(), error = identity)
    expect_s3_class(e, "gpuiso_error_device")
    expect_false(inherits(e, "gpuiso_error_input"))
    expect_match(conditionMessage(e), reason, fixed = TRUE)
    expect_match(conditionMessage(e), "device = \"cpu\"", fixed = TRUE)
  }
})

test_that("bad input is the same error on the GPU as on the CPU", {
  # input is checked before the device is chosen: these hold with or
  # without a GPU
  bad <- list(
    function(d) isotonic(c(1, NA, 3), device = d),
    function(d) isotonic(c(1, 2, NaN), device = d),
    function(d) isotonic(c(Inf, 2, 3), device = d),
    function(d) isotonic(matrix(c(1, 2, NaN, 4), 2), device = d),
    function(d) isotonic(c(1, 2, 3), c(1, -0.5, 1), device = d),
    function(d) isotonic(c(1, 2, 3), c(1, Inf, 1), device = d),
    function(d) isotonic(c(1, 2), c(0, 0), device = d),
    function(d) isotonic(matrix(1:6, 3), matrix(c(1, 1, 1, 0, 0, 0), 3), device = d),
    function(d) isotonic(1:5, c(1, 0, 1, 0, 0), groups = c("a", "b", "a", "b", "c"),
                         device = d),
    function(d) isotonic(1:3, weights = c(1, 1), device = d),
    function(d) isotonic(matrix(1:6, 3), weights = c(1, 1), device = d),
    function(d) isotonic(1:3, groups = c(1, 1), device = d),
    function(d) isotonic(1:3, groups = c("a", NA, "b"), device = d),
    function(d) isotonic("a", device = d),
    function(d) isotonic(list(1, 2), device = d),
    function(d) isotonic(1:3, decreasing = NA, device = d),
    function(d) isotonic(c(1, 4e38), precision = "single", device = d),
    function(d) isotonic(1:3, precision = "half", device = d),
    function(d) isoreg(c(1, -Inf, 3), device = d),
    function(d) isoreg(1:2, c(1, 2), weights = c(0, 0), device = d),
    function(d) isoreg(1:3, c(1, 2), device = d),
    function(d) isoreg(c("a", "b"), device = d),
    function(d) isotonic_vjp(c(1, NA), c(1, 1), device = d),
    function(d) isotonic_vjp(1:3, grad = c(1, 1), device = d),
    function(d) isotonic_vjp(c(1, 2), c(1, 1), weights = c(0, 0), device = d)
  )
  for (i in seq_along(bad)) {
    lab <- sprintf("bad input %d", i)
    ec <- tryCatch(bad[[i]]("cpu"), error = identity)
    eg <- tryCatch(bad[[i]]("gpu"), error = identity)
    expect_s3_class(ec, "gpuiso_error_input")
    expect_identical(class(eg), class(ec), label = lab)
    expect_identical(conditionMessage(eg), conditionMessage(ec), label = lab)
  }
})

test_that("gpu_release() is harmless and invisible without a workspace", {
  expect_invisible(gpu_release())
  expect_null(gpu_release())
  expect_identical(gpu_info()$workspace, 0)
})

test_that("running out of device memory is a classed error, and nothing stays held", {
  skip_if_not(gpu_available())
  on.exit(full_device(FALSE), add = TRUE)
  y <- runif(5000)
  # the engine's test hook makes the device look full
  full_device(TRUE)
  expect_error(isotonic(y, device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  expect_identical(gpu_info()$workspace, 0)
  full_device(FALSE)
  expect_equal(isotonic(y, device = "gpu"), isotonic(y, device = "cpu"),
               tolerance = 1e-12)
})

test_that("the entry point for data on the device gives the host path's fit", {
  skip_if_not(gpu_available())
  set.seed(11)
  sizes <- c(5, 1024, 1025, 3000, 70000, 1, 0, 33)
  off <- as.double(c(0, cumsum(sizes)))
  n <- sum(sizes)
  y <- rnorm(n)
  w <- runif(n, 0.1, 1.1)
  for (single in c(FALSE, TRUE)) for (dec in c(FALSE, TRUE)) for (ww in list(NULL, w)) {
    # gpu_bench's warm-up runs through gi_cuda_fit_device() and returns its fit
    res <- .Call(gpuiso:::ffi_gpu_bench, y, ww, off, dec, single, 1L)
    expect_identical(res$status, "ok")
    host <- .Call(gpuiso:::ffi_gpu_fit, y, ww, off, dec, FALSE, single, 2L)
    expect_identical(res$fit, host$fit,
                     label = sprintf("device entry, single = %s, dec = %s, weighted = %s",
                                     single, dec, !is.null(ww)))
  }
})

test_that("iso_calibrate() on the GPU sorts and pools on the device and equals the CPU", {
  skip_if_not(gpu_available())
  set.seed(12)
  n <- 200000
  s <- c(round(rnorm(n / 2), 3), rnorm(n / 2)) # many ties, and none
  s[1:10] <- c(0, -0, 0, -0, 0, 1, 1, -1, -1, 0)  # -0 pools with 0
  y <- rbinom(n, 1, plogis(s))
  p <- runif(n) # probabilities as outcomes
  w <- runif(n, 0.1, 3)
  seg <- sample(sprintf("seg%03d", 1:280), n, replace = TRUE)
  s0 <- s; y0 <- y; w0 <- w
  for (out in list(y, p)) for (ww in list(NULL, w)) for (gr in list(NULL, seg)) {
    gpu <- iso_calibrate(s, out, weights = ww, groups = gr, device = "gpu")
    cpu <- iso_calibrate(s, out, weights = ww, groups = gr, device = "cpu")
    expect_identical(gpu$device, "gpu")
    expect_identical(names(gpu$curves), names(cpu$curves))
    for (k in seq_along(cpu$curves)) {
      expect_identical(gpu$curves[[k]]$score, cpu$curves[[k]]$score)
      expect_equal(gpu$curves[[k]]$weight, cpu$curves[[k]]$weight, tolerance = 1e-13)
      expect_equal(gpu$curves[[k]]$value, cpu$curves[[k]]$value, tolerance = 1e-10)
      expect_true(all(diff(gpu$curves[[k]]$value) >= 0))
      expect_true(all(gpu$curves[[k]]$value >= 0 & gpu$curves[[k]]$value <= 1))
    }
    grid <- seq(-4, 4, length.out = 101)
    g1 <- if (is.null(gr)) NULL else "seg007"
    expect_equal(predict(gpu, grid, groups = g1), predict(cpu, grid, groups = g1),
                 tolerance = 1e-10)
  }
  expect_identical(s, s0); expect_identical(y, y0); expect_identical(w, w0)
  # zero weights are pooled on the CPU, then fitted on the GPU
  w[1:100] <- 0
  expect_equal(iso_calibrate(s, y, weights = w, device = "gpu")$curves,
               iso_calibrate(s, y, weights = w, device = "cpu")$curves, tolerance = 1e-10)
  # a group with one distinct score is the same input error as on the CPU
  expect_error(iso_calibrate(c(1, 1, 2, 3), c(0, 1, 0, 1), groups = c("a", "a", "b", "b"),
                             device = "gpu"),
               class = "gpuiso_error_input", regexp = "group \"a\"")
  on.exit(full_device(FALSE), add = TRUE)
  full_device(TRUE)
  expect_error(iso_calibrate(s, y, device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  expect_identical(gpu_info()$workspace, 0)
})
