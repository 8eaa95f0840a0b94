# One error path (issue 11): every error raised from C is a condition of
# class c("gpuiso_error_<kind>", "gpuiso_error", "error", "condition"), built
# by abort_from_c() (R/conditions.R) from gi_abort() (src/api_errors.c),
# with the fields `arg` and `position`; interrupts seen by the engine become
# R's own `interrupt` condition. The messages as users read them are
# snapshots (_snaps/conditions.md).

gpuiso_class <- function(kind) {
  c(paste0("gpuiso_error_", kind), "gpuiso_error", "error", "condition")
}

catch <- function(expr) {
  tryCatch(expr, error = identity, interrupt = function(e) e)
}

test_that("a malformed call into C is an internal error, not reporting .Call", {
  e <- catch(.Call(gpuiso:::ffi_isotonic_fit, 1, NULL, c(0, 5), FALSE, FALSE, 1L))
  expect_identical(class(e), gpuiso_class("internal"))
  expect_match(conditionMessage(e), "internal error.*offsets.*Please report it")
  expect_null(conditionCall(e))
  expect_null(e$arg)
  expect_identical(e$position, NA_real_)
  e <- catch(.Call(gpuiso:::ffi_idr_fit, 1:3, c(0, 1, 2), NULL, 3, 3))
  expect_identical(class(e), gpuiso_class("internal"))
  # a status the glue does not know
  expect_identical(class(catch(.Call(gpuiso:::ffi_stop_status, 99L, 0))),
                   gpuiso_class("internal"))
})

test_that("each engine status becomes its kind of condition, naming the problem", {
  e <- catch(.Call(gpuiso:::ffi_stop_status, 1L, 2))
  expect_identical(class(e), gpuiso_class("memory"))
  expect_match(conditionMessage(e), "memory.*problem 3")
  expect_identical(e$position, 3)
  e <- catch(.Call(gpuiso:::ffi_stop_status, 2L, 0))
  expect_identical(class(e), gpuiso_class("input"))
  expect_identical(e$arg, "weights")
  expect_identical(e$position, 1)
  e <- catch(.Call(gpuiso:::ffi_stop_status, 3L, 2))
  expect_identical(class(e), gpuiso_class("overflow"))
  expect_identical(conditionMessage(e),
                   "A result for problem 3 is beyond the range of doubles.")
  expect_identical(e$position, 3)
  e <- catch(.Call(gpuiso:::ffi_stop_status, 5L, 1))
  expect_identical(class(e), gpuiso_class("input"))
  expect_identical(e$arg, "y")
  expect_match(conditionMessage(e), "`y` must be finite: problem 2 holds a missing or infinite value")
  e <- catch(.Call(gpuiso:::ffi_stop_status, 4L, 0))
  expect_identical(class(e), c("interrupt", "condition"))
  expect_null(.Call(gpuiso:::ffi_stop_status, 0L, 0))
})

test_that("an error under .Call reports the call of the package function the user called", {
  # package functions (their enclosure's top is the namespace) that reach
  # .Call through base R's frames in between
  pkg <- new.env(parent = asNamespace("gpuiso"))
  pkg$inner <- function() .Call(ffi_stop_status, 3L, 0)
  pkg$outer <- function(a) tryCatch(lapply(a, function(i) inner()), finally = NULL)
  environment(pkg$inner) <- pkg
  environment(pkg$outer) <- pkg
  e <- catch(pkg$outer(1))
  expect_s3_class(e, "gpuiso_error_overflow")
  expect_identical(conditionCall(e), quote(pkg$outer(1)))
  # a user's function in between ends the walk at the package function it calls
  user <- function(f) f(2)
  environment(user) <- globalenv()
  expect_identical(conditionCall(catch(user(pkg$outer))), quote(f(2)))
})

test_that("valid input fits; a true result beyond the doubles is a classed error", {
  # this gave an unclassed "sums overflow" error before the exact arithmetic
  expect_identical(isotonic(c(2e-310, 1e-310), weights = c(1e308, 1e308)),
                   rep((2e-310 + 1e-310) / 2, 2)) # subnormals: the sum is exact
  # d/dw = (y - fit) G / W with G / W = 2e308 / 1e-323: beyond the doubles,
  # while d/dy = w G / W = 1e308 is not
  e <- catch(isotonic_vjp(c(2, 1), grad = c(1e308, 1e308), weights = c(5e-324, 5e-324),
                          device = "cpu"))
  expect_s3_class(e, "gpuiso_error_overflow")
  expect_match(conditionMessage(e), "gradient of problem 1 is beyond the range of doubles")
  expect_match(deparse(conditionCall(e))[1L], "^isotonic_vjp\\(")
  # G = 2e308 itself is beyond the doubles, but G / W is not
  g <- isotonic_vjp(c(2, 1), grad = c(1e308, 1e308), weights = c(1, 1), device = "cpu")
  expect_identical(g, list(y = c(1e308, 1e308), weights = c(5e307, -5e307)))
})

test_that("a failure of the GPU engine is a device error, and R's status is a name", {
  skip_if(gpu_available(), "a GPU engine is available")
  e <- catch(.Call(gpuiso:::ffi_gpu_fit, c(2, 1), NULL, c(0, 2), FALSE, FALSE, FALSE, 1L))
  expect_identical(class(e), gpuiso_class("device"))
  expect_match(conditionMessage(e), "^The GPU engine failed: .*device = \"cpu\"")
  e <- catch(.Call(gpuiso:::ffi_gpu_idr, 0:1, 0:1, NULL, 2, 2, 1L))
  expect_identical(class(e), gpuiso_class("device"))
  expect_false(exists("gpu_status_range", asNamespace("gpuiso"), inherits = FALSE))
})

test_that("the R layer's conditions share the C ones' classes and fields", {
  e <- catch(isotonic(c(1, NA, 3)))
  expect_identical(class(e), gpuiso_class("input"))
  expect_identical(e$arg, "y")
  expect_identical(e$position, 2)
  e <- catch(isotonic(c(1, 2), weights = c(0, 0)))
  expect_identical(e$arg, "weights")
  e <- catch(with_opts(list(gpuiso.threads = 0L), isotonic(1:3)))
  expect_identical(class(e), gpuiso_class("input"))
  # `arg` (and `position`, where the message names one) on the checks of
  # every argument
  fields <- list(
    list(quote(isotonic(c(1, 2, 3), groups = c(1, NA, 2))), "groups", 2),
    list(quote(isotonic(c(1, 2, 3), groups = 1:2)), "groups", NA),
    list(quote(isotonic(c(1, 2, 3), groups = list(1, 2, 3))), "groups", NA),
    list(quote(isotonic(c(1, 2), weights = 1:3)), "weights", NA),
    list(quote(isotonic(matrix(1:4, 2), weights = 1:3)), "weights", NA),
    list(quote(isotonic(c(1, 2), weights = c("a", "b"))), "weights", NA),
    list(quote(isotonic("a")), "y", NA),
    list(quote(isotonic(list(1))), "y", NA),
    list(quote(isotonic(NULL)), "y", NA),
    list(quote(isotonic_vjp(c(1, 2, 3), grad = 1:2)), "grad", NA),
    list(quote(isotonic(1:3, decreasing = NA)), "decreasing", NA),
    list(quote(isotonic(1:3, device = "tpu")), "device", NA),
    list(quote(isotonic(1:3, precision = "half")), "precision", NA),
    list(quote(isotonic(1:3, na.rm = NA)), "na.rm", NA),
    list(quote(isoreg(1:3, 1:4)), "y", NA),
    list(quote(isoreg(1:3, 1:3, weights = 1:2)), "weights", NA))
  for (f in fields) {
    e <- catch(eval(f[[1L]]))
    expect_identical(class(e), gpuiso_class("input"))
    expect_identical(e$arg, f[[2L]], label = deparse(f[[1L]]))
    expect_identical(e$position, as.double(f[[3L]]), label = deparse(f[[1L]]))
  }
})

# ---------------------------------------------------------------------------
# Interrupts (with_interrupt_at() is in helper-common.R).

# The CPU engine's own looks inside a piece of work (core/pava.c, vjp.c,
# isoreg.c) land in a separate change of issue 11: until then the tests that
# need them skip. Set to TRUE with that change.
engine_polls <- TRUE

test_that("an interrupt stops idr(), and the next call works", {
  set.seed(1)
  n <- 20000
  x <- runif(n)
  y <- rnorm(n, x)
  expect_identical(with_interrupt_at(1, idr(y, x, device = "cpu")), "stopped")
  expect_identical(with_interrupt_at(3, idr(y, x, device = "cpu")), "stopped")
  fit <- idr(y, x, device = "cpu")
  expect_s3_class(fit, "gpuiso_idr")
  small <- idr(y[1:200], x[1:200], device = "cpu")
  expect_identical(with_interrupt_at(1, idr(y[1:200], x[1:200], device = "cpu"))$value,
                   small$value) # too small to look
})

test_that("an interrupt stops idr() on several covariates, on any threads", {
  # the sweep of the thresholds looks, its cuts and its passes over the
  # nodes (about 30 polls of one thread here; the covering pairs of points
  # in the plane now take less than one), so a late poll stops it too
  set.seed(2)
  n <- 3000
  X <- data.frame(a = runif(n), b = runif(n))
  y <- rnorm(n, X$a + X$b)
  fit <- idr(y, X)
  for (k in 1:2) {
    for (at in if (k == 1) c(1, 3, 20) else c(1, 3)) {
      expect_identical(with_threads(k, with_interrupt_at(at, idr(y, X))), "stopped",
                       info = sprintf("%d threads, poll %d", k, at))
    }
    again <- with_threads(k, idr(y, X))
    expect_equal(again$value, fit$value, tolerance = 1e-12)
  }
})

test_that("an interrupt between the pieces of a large batch stops isotonic()", {
  set.seed(2)
  y <- matrix(rnorm(6e6), 3000) # two pieces of the glue
  expect_identical(with_interrupt_at(1, isotonic(y, device = "cpu")), "stopped")
  expect_identical(isotonic(y[, 1:3], device = "cpu"),
                   apply(y[, 1:3], 2, isotonic, device = "cpu"))
})

test_that("an interrupt stops a single large fit and a one-piece batch", {
  skip_if_not(engine_polls, "the CPU engine does not look at interrupts yet")
  set.seed(3)
  y <- rnorm(3e6)
  expect_identical(with_interrupt_at(1, isotonic(y, device = "cpu")), "stopped")
  expect_identical(with_interrupt_at(1, with_opts(list(gpuiso.threads = 2L),
                                                  isotonic(matrix(y, 3000), device = "cpu"))),
                   "stopped")
  expect_identical(with_interrupt_at(1, isotonic_vjp(y, grad = y, device = "cpu")), "stopped")
  expect_identical(with_interrupt_at(1, isoreg(runif(3e6), y, device = "cpu")), "stopped")
  # the state is reset
  expect_identical(isotonic(y[1:10]), isotonic(y[1:10] + 0))
  expect_true(is_monotone(isotonic(y, device = "cpu")))
})

test_that("errors report the user's call and leave inputs alone", {
  y <- c(3, NA, 1); y0 <- y + 0
  e <- tryCatch(isotonic(y), error = identity)
  expect_s3_class(e, "gpuiso_error_input")
  expect_s3_class(e, "gpuiso_error")
  expect_match(deparse(conditionCall(e)), "isotonic")
  expect_identical(y, y0)
})

test_that("error messages read as before", {
  x <- snap$x
  y <- snap$y
  s <- snap$s
  o <- snap$o
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(c(1, NA, 3)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(c(1, 2), weights = c(1, -1)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1:3, weights = c(0, 0, 0)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(matrix(1:6, 2), weights = matrix(1, 3, 2)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1e39, precision = "single"))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1:3, decreasng = TRUE))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1:3, device = "tpu"))
  expect_snapshot(cran = TRUE, error = TRUE, isoreg(1:3, 1:4))
  expect_snapshot(cran = TRUE, error = TRUE, iso_calibrate(s, o + 1))
  expect_snapshot(cran = TRUE, error = TRUE, idr(y, cbind(x, x)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic_vjp(1:3, 1:2))
})
