# precision = "single" (R/precision.R): float32 rounding of the inputs and
# results on the CPU engine, and the values float32 cannot hold. (The GPU's
# single precision is tested in test-gpu.R and test-gpu-transfer.R.)

test_that("the float32 rounding is R's own", {
  x <- c(0, -0, 1, 1 / 3, -2 / 3, pi * 1e10, 1e38, 3.4028234663852886e38, 2^-149,
         2^-150, 3 * 2^-151, 1e-40, -1e-45, 16777217, .Machine$double.eps)
  expect_identical(gpuiso:::as_single(x), f32(x))
  expect_identical(f32(2^-150), 0) # the largest double that rounds to zero
  expect_identical(f32(2^-149), 2^-149)
  expect_true(f32(1 / 3) != 1 / 3)
  expect_null(gpuiso:::as_single(NULL))
})

test_that("precision = 'single' on the CPU is the double fit of float32 data, rounded", {
  set.seed(121)
  for (trial in 1:100) {
    p <- random_problem(300L)
    lab <- sprintf("trial %d", trial)
    zs <- isotonic(p$y, p$w, p$decreasing, device = "cpu", precision = "single")
    ze <- f32(isotonic(f32(p$y), f32(p$w), p$decreasing, device = "cpu"))
    expect_identical(zs, ze, label = lab)
    expect_true(is_monotone(zs, p$decreasing), label = lab)
  }
  expect_identical(isotonic(1 / 3, precision = "single"), f32(1 / 3))
  # shapes and groups as in double
  m <- matrix(rnorm(60), 12, 5, dimnames = list(NULL, letters[1:5]))
  ms <- isotonic(m, precision = "single")
  me <- isotonic(matrix(f32(m), 12, 5, dimnames = dimnames(m)))
  me[] <- f32(me)
  expect_identical(ms, me)
  v <- rnorm(50); gr <- rep(c("a", "b", "c"), length.out = 50)
  expect_identical(isotonic(v, groups = gr, precision = "single"),
                   f32(isotonic(f32(v), groups = gr)))
  # n = 0 and 1
  expect_identical(isotonic(numeric(0), precision = "single"), numeric(0))
  expect_identical(isotonic(2.1, 3, precision = "single"), f32(2.1))
  expect_identical(isotonic_vjp(numeric(0), numeric(0), precision = "single"),
                   list(y = numeric(0), weights = numeric(0)))
  expect_silent(f0 <- isoreg(numeric(0), numeric(0), weights = numeric(0),
                             precision = "single"))
  expect_identical(f0$yf, numeric(0))
  # weights that float32 holds as subnormals still count
  expect_identical(isotonic(c(3, 1, 2), c(2^-149, 1, 1), precision = "single"),
                   f32(isotonic(c(3, 1, 2), c(2^-149, 1, 1))))
})

test_that("precision = 'single': gradients and isoreg() on the CPU", {
  set.seed(122)
  n <- 200
  y <- rnorm(n) + seq_len(n) / 50; w <- runif(n, 0.1, 1.1); g <- rnorm(n)
  v <- isotonic_vjp(y, g, w, precision = "single")
  expect_identical(v$y, f32(v$y))
  expect_identical(v$weights, f32(v$weights))
  # the closed form on the float32 data and the float32 fit
  ys <- f32(y); ws <- f32(w)
  z <- isotonic(y, w, precision = "single")
  e <- vjp_on_partition(ys, z, f32(g), ws, ref_pava(ys, ws)$starts)
  expect_close(v$y, e$y, 2e-7, "single vjp, d/dy")
  expect_close(v$weights, e$weights, 2e-7, "single vjp, d/dw")
  # isoreg: pooled from the rounded data
  x <- round(runif(n) * 50)
  f <- isoreg(x, y, w, precision = "single")
  expect_identical(f$precision, "single")
  expect_identical(f$yf, f32(f$yf))
  fd <- isoreg(x, f32(y), f32(w))
  expect_close(f$yf, fd$yf, 2e-7, "single isoreg")
  expect_identical(f$iKnots, fd$iKnots)
  expect_output(print(f), "float32")
  expect_output(print(summary(f)), "float32")
  expect_identical(isoreg(x, y)$precision, "double")
})

test_that("bad precision and values float32 cannot hold are input errors", {
  err <- function(expr, regexp) expect_error(expr, regexp, class = "gpuiso_error_input")
  err(isotonic(1:3, precision = "half"), "`precision`.*\"half\"")
  err(isotonic(1:3, precision = 1), "`precision`")
  err(isotonic(1:3, precision = NA), "`precision`")
  err(isotonic(1:3, precision = c("single", "double")), "`precision`")
  err(isotonic(matrix(1:4, 2), precision = "float"), "`precision`")
  err(isoreg(1:3, precision = "quad"), "`precision`")
  err(isotonic_vjp(1:3, c(1, 1, 1), precision = "x"), "`precision`")
  # beyond the float32 range
  err(isotonic(c(1, 4e38), precision = "single"), "`y`.*3.4e38.*element 2 is 4e\\+38")
  err(isotonic(c(1, -1e300, 2), precision = "single"), "`y`.*element 2 is -1e\\+300")
  m <- matrix(1, 3, 2); m[2, 2] <- 1e39
  err(isotonic(m, precision = "single"), "`y`.*element \\[2, 2\\]")
  err(isotonic(1:3, c(1, 1e39, 1), precision = "single"), "`weights`.*element 2 is 1e\\+39")
  err(isotonic_vjp(1:3, c(1, 1e39, 1), precision = "single"), "`grad`.*element 2")
  err(isoreg(1:3, c(1, 1e39, 1), precision = "single"), "`y`.*element 2")
  err(isoreg(c(1, 1e39, 1), precision = "single"), "`x`.*element 2")
  err(isoreg(c(1, 1, 2), c(1, 2, 3), weights = c(3e38, 3e38, 1), precision = "single"),
      "`weights` of tied `x`")
  # positive weights that would round to zero
  err(isotonic(1:3, c(1, 1e-46, 1), precision = "single"),
      "`weights`.*round to zero.*element 2 is 1e-46")
  err(isotonic(1:3, c(1, 2^-150, 1), precision = "single"), "`weights`.*element 2")
  err(isotonic(matrix(1:6, 3), c(1, 1e-300, 1), precision = "single"), "`weights`.*element 2")
  # all fine in double
  expect_identical(isotonic(c(1, 4e38)), c(1, 4e38))
  expect_identical(isotonic(c(2, 1), c(1, 1e-46)), c(2, 2))
})
