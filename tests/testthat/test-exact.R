# The differential test against exact rational arithmetic (gmp): random
# small problems (n = 1..8) with values and weights from the ends of
# double's range -- subnormals, 1e-300, 1e-162, 1e300, DBL_MAX, zeros,
# exact ties, weights spanning the whole range in one problem -- solved by
# the package and by the exact reference of helper-exact.R, each fitted
# value held to the engine's accuracy rule (2 ulp of the exact block mean +
# 2^-100 of the block's mean |y|), an exact result beyond double's range to
# an error of class "gpuiso_error_overflow" (or, where the rule's slack
# reaches back into the range, a finite value within it). Where a fit's
# blocks differ from the exact ones (a block whose sum cancels below what
# double-double sums carry can be decided either way), it passes only if it
# satisfies the optimality conditions within that rule on its own blocks
# (.kkt_ok(); for isoreg(), on its distinct x, .kkt_ok_isoreg()); the
# backward pass is checked on the forward pass's blocks, which it uses.
#
# NOT_CRAN: 41,000 problems (20,000 for isotonic(), the first 5,000 of them
# also solved as matrix columns and as groups of ragged batches); on CRAN
# about 500 (the isotonic() ones on all three paths). The
# seeds are fixed. Set GPUISO_EXACT_SCALE (a factor) to run more or fewer,
# GPUISO_EXACT_OUT to a file name to save every outcome (an RDS), and
# GPUISO_EXACT_DEVICE=gpu to check the GPU engine instead of the CPU one.

exact_sizes <- function() {
  full <- c(isotonic = 20000, isotonic_vjp = 5000, isoreg = 5000,
            iso_calibrate = 5000, reliability_diagram = 2000, idr = 4000)
  cran <- c(isotonic = 200, isotonic_vjp = 60, isoreg = 60, iso_calibrate = 60,
            reliability_diagram = 40, idr = 60)
  n <- if (identical(Sys.getenv("NOT_CRAN"), "true")) full else cran
  s <- suppressWarnings(as.numeric(Sys.getenv("GPUISO_EXACT_SCALE", "1")))
  if (is.finite(s) && s > 0) n[] <- pmax(1, round(n * s))
  n
}

# Print the figures (one line per function, and the failures by kind of
# input) and keep the outcomes for GPUISO_EXACT_OUT.
exact_outcomes <- new.env()
exact_report <- function(d) {
  for (f in unique(d$fun)) {
    df <- d[d$fun == f, ]
    message("[exact] ", exact_summary(df))
    bad <- .bad_outcome(df$outcome)
    if (any(bad)) {
      tg <- exact_by_tag(df)
      tg <- tg[tg[, "wrong"] > 0, , drop = FALSE]
      message("[exact]   wrong by kind of input: ",
              paste(sprintf("%s %d/%d", rownames(tg), tg[, "wrong"], tg[, "problems"]),
                    collapse = ", "))
    }
  }
  for (f in unique(d$fun)) assign(f, d[d$fun == f, ], envir = exact_outcomes)
  out <- Sys.getenv("GPUISO_EXACT_OUT")
  if (nzchar(out)) saveRDS(as.list(exact_outcomes), out)
}

# One expectation per function: no wrong result. The failure message lists
# the smallest failing calls.
exact_expect_clean <- function(d) {
  for (f in unique(d$fun)) {
    df <- d[d$fun == f, ]
    expect(!any(.bad_outcome(df$outcome)), paste0(
      exact_summary(df), ". The smallest failing calls:\n",
      paste(exact_smallest_wrong(df), collapse = "\n")))
  }
}

test_that("gmp converts doubles to rationals exactly, subnormals and DBL_MAX included", {
  skip_if_not_installed("gmp")
  two <- gmp::as.bigz(2)
  expect_true(gmp::as.bigq(5e-324) == gmp::as.bigq(1, two^1074))
  expect_true(gmp::as.bigq(2^-1060) == gmp::as.bigq(1, two^1060))
  expect_true(gmp::as.bigq(3 * 2^-1074) == gmp::as.bigq(3, two^1074))
  expect_true(gmp::as.bigq(.Machine$double.xmax) == (two^53 - 1) * two^971)
  expect_true(gmp::as.bigq(-1e308) == -gmp::as.bigq(gmp::as.bigz(sprintf("%.0f", 1e308))))
  expect_true(gmp::as.bigq(0.1) == gmp::as.bigq(3602879701896397, two^55))
  # against the rational built from the mantissa and the exponent, over the
  # whole range
  v <- .ref_with_seed(11L, c(runif(200) * 10^runif(200, -323, 308), 2^(-1074:-1020),
                             .Machine$double.xmax, 2^1023, 1e-300, 1e-162, 1e300,
                             1 - 2^-53, 2^-1022 * (1 - 2^-52), 2^1023 * (1 + 2^-52)))
  v <- c(v, -v)
  expect_true(all(as.logical(gmp::as.bigq(v) == .q_parts(v))))
  # every double of a sample survives the round trip
  v <- c(5e-324, 2^-1023, 2^-1022, 1e-300, 1e-162, 0.3, 1e300, 1e308, .Machine$double.xmax)
  expect_identical(as.double(gmp::as.bigq(c(v, -v))), c(v, -v))
})

test_that("the exact reference solves small problems by hand", {
  skip_if_not_installed("gmp")
  p <- list(list(y = c(1, 3, 2, 4), w = NULL, decreasing = FALSE),
            list(y = c(1, 3, 2, 4), w = c(1, 1, 3, 1), decreasing = FALSE),
            list(y = c(1, 9, 2, 5), w = c(1, 0, 1, 1), decreasing = FALSE), # zero weight
            list(y = c(1, 5, 3, 0), w = c(1, 1, 1, 0), decreasing = FALSE), # trailing zero
            list(y = c(1, 3, 2, 4), w = NULL, decreasing = TRUE),
            list(y = c(2, 2, 1), w = NULL, decreasing = FALSE),             # tie then pool
            list(y = 0.3, w = 5e-324, decreasing = FALSE),
            list(y = c(1, 2), w = c(1e-162, 1e-162), decreasing = FALSE),
            list(y = c(1e-300, 2e-300, 1e307), w = c(1, 1, 1), decreasing = FALSE),
            list(y = c(1, 1e308), w = c(1e-300, 1e308), decreasing = FALSE))
  r <- .exact_iso_ref(p)
  third <- gmp::as.bigq(5, 3)
  want <- gmp::as.bigq(c(1, 2.5, 2.5, 4, 1, 2.25, 2.25, 4, 1, 2, 2, 5,
                         1, 4, 4, 4, 2.5, 2.5, 2.5, 2.5, 0, 0, 0,
                         0.3, 1, 2, 1e-300, 2e-300, 1e307, 1, 1e308))
  want[21:23] <- third
  expect_true(all(as.logical(r$z == want)))
  # blocks: runs of equal exact values within a problem
  expect_identical(r$start, c(TRUE, TRUE, FALSE, TRUE, TRUE, TRUE, FALSE, TRUE,
                              TRUE, TRUE, FALSE, TRUE, TRUE, TRUE, FALSE, FALSE,
                              TRUE, FALSE, FALSE, FALSE, TRUE, FALSE, FALSE,
                              TRUE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE))
  # the slack of a block is 2^-100 of its weighted mean |y|
  expect_true(all(as.logical(r$slack[1:4] == gmp::as.bigq(c(1, 2.5, 2.5, 4)) * gmp::as.bigq(2^-100))))
})

test_that("the exact reference agrees with the double-double reference on moderate problems", {
  skip_if_not_installed("gmp")
  ps <- .ref_with_seed(7L, lapply(1:300, function(i) {
    p <- random_problem(10L)
    p$y <- p$y[seq_len(min(8L, length(p$y)))]
    if (!is.null(p$w)) {
      p$w <- p$w[seq_along(p$y)]
      if (!any(p$w > 0)) p$w[1L] <- 1
    }
    p
  }))
  r <- .exact_iso_ref(ps)
  z <- as.double(r$z)
  ref <- unlist(lapply(ps, function(p) ref_fit(p$y, p$w, p$decreasing)))
  expect_lte(max(abs(z - ref) / (1 + abs(ref))), 1e-14)
  bru <- unlist(lapply(ps, function(p) brute_fit(p$y, p$w, p$decreasing)))
  expect_lte(max(abs(z - bru) / (1 + abs(bru))), 1e-12)
})

test_that("the accuracy rule: 2 ulp of the exact value, beyond the range an overflow", {
  skip_if_not_installed("gmp")
  m <- gmp::as.bigq(1, 3)
  # the double 1/3 is 1/3 ulp below the exact third (an ulp is 2^-54 here)
  u <- 2^-54
  f <- c(1 / 3, 1 / 3 + u, 1 / 3 - u, 1 / 3 + 2 * u, 1 / 3 - 2 * u, 1 / 3 + 3 * u)
  chk <- .exact_check(f, rep(m, 6), gmp::as.bigq(numeric(6)))
  expect_identical(chk$ok, c(TRUE, TRUE, TRUE, TRUE, FALSE, FALSE))
  # subnormals: an ulp is 2^-1074
  chk <- .exact_check(c(5e-324, 1e-323, 1.5e-323), gmp::as.bigq(c(0, 0, 0)),
                      gmp::as.bigq(numeric(3)))
  expect_identical(chk$ok, c(TRUE, TRUE, FALSE))
  # the slack term
  chk <- .exact_check(1 + 2^-40, gmp::as.bigq(1), gmp::as.bigq(2^-40))
  expect_true(chk$ok)
  # beyond the range: what rounds to Inf; just below it: DBL_MAX
  top <- .q_beyond()
  chk <- .exact_check(c(Inf, .Machine$double.xmax, .Machine$double.xmax),
                      c(top, top - 1, gmp::as.bigq(.Machine$double.xmax)),
                      gmp::as.bigq(numeric(3)))
  expect_identical(chk$overflow, c(TRUE, FALSE, FALSE))
  expect_identical(chk$ok, c(FALSE, TRUE, TRUE))
  # a slack wider than the gap to the range: a finite value within it is
  # right too, a value outside it or Inf is not
  big <- top * 4
  chk <- .exact_check(c(0, 0, Inf, 1e308), rep(big, 4),
                      c(big * 2, gmp::as.bigq(2^900), big * 2, gmp::as.bigq(2^1020)))
  expect_identical(chk$ok, c(TRUE, FALSE, FALSE, FALSE))
  expect_identical(chk$overflow, c(FALSE, TRUE, TRUE, TRUE))
  expect_true(as.logical(.qulp(big) == gmp::as.bigq(2^971)))
})

test_that("the rule's corners: sums that cancel below double-double, in isoreg() and isotonic_vjp()", {
  skip_if_not_installed("gmp")
  # random problems of other seeds whose fits and derivatives differ from
  # the exact ones within the rule: block means that cancel to 0, an exact
  # derivative beyond the range computed as a finite one
  iso <- list(
    list(x = c(3, 2, 1, 2), y = c(-1.0143584954055417e-161, 1e-200, 1e-300, 1.0143584954055417e-161),
         w = c(1e-300, 3e-308, 1e-300, 1e-300), decreasing = FALSE),
    list(x = c(2, 4, 2, 6, 2, 4, 1, 4),
         y = c(1e-200, -1.715988597311508e-225, -3e-308, -1e-200, 1e-162, -1e-162, 3e-308,
               -2.2250738585072014e-308),
         w = c(1e300, 4.181749715679325, 1e300, 4.477105414499529, 1e308, 1e308,
               3.2182837911386307e207, 2.0638954456116278e237), decreasing = FALSE),
    list(x = c(6, 3, 6, 6, 3, 1, 3), y = c(-0, -8.881350209955126e196, -4, 0, 1e300, 1, -1e300),
         w = c(1e-162, 2.2250738585072014e-308, .Machine$double.xmax, 3.393918623757235e-193,
               1e-162, 1e308, 1e-162), decreasing = TRUE))
  d <- exact_run_isoreg(length(iso), problems = iso)
  expect_false(any(.bad_outcome(d$outcome)), label = paste(d$outcome, collapse = " "))
  # the rescue is no pass for any fit: one beyond the rule's slack (here
  # 2^-100 of 1e-161) fails, as do blocks out of order
  r <- isoreg(iso[[1]]$x, iso[[1]]$y, weights = iso[[1]]$w)
  expect_true(.kkt_ok_isoreg(iso[[1]], r))
  r1 <- r
  r1$yf[] <- 1e-180
  expect_false(.kkt_ok_isoreg(iso[[1]], r1))
  r2 <- isoreg(c(1, 2, 3), c(3, 2, 1))
  r2$yf <- c(3, 2, 1) # each its own mean, out of order
  r2$blocks <- data.frame(from = 1:3, to = 1:3)
  expect_false(.kkt_ok_isoreg(list(x = c(1, 2, 3), y = c(3, 2, 1), w = NULL, decreasing = FALSE), r2))
  vjp <- list(
    list(y = c(-1e308, -.Machine$double.xmax, -1e307, 1e308), grad = c(0, -1e308, -1e-300, 1e308),
         w = c(0, 2.2250738585072014e-308, 0, 0), decreasing = FALSE),
    list(y = c(1.48219693752374e-323, 2, 4.94065645841247e-324, 8.429341935017145, 8.429341935017145,
               1.9065817078917713e-308, 1.48219693752374e-323),
         grad = c(5.9739398333837974e234, -0, 1e307, 1e308, -1e307, -0, -1e308),
         w = c(0, 0, 0, 1e-200, 0, 0, 3e-308), decreasing = FALSE))
  d <- exact_run_vjp(length(vjp), problems = vjp)
  expect_false(any(.bad_outcome(d$outcome)), label = paste(d$outcome, collapse = " "))
})

test_that("isotonic() gives the exact fit, as a vector, a matrix column and a group", {
  skip_if_not_installed("gmp")
  n <- exact_sizes()[["isotonic"]]
  d <- exact_run_isotonic(n, seed = 1101L, batch = min(n, 5000))
  exact_report(d)
  exact_expect_clean(d)
})

test_that("isotonic_vjp() gives the exact w G / W and (y - z) G / W", {
  skip_if_not_installed("gmp")
  d <- exact_run_vjp(exact_sizes()[["isotonic_vjp"]], seed = 1102L)
  exact_report(d)
  exact_expect_clean(d)
})

test_that("isoreg() gives the exact fit, tied x pooled", {
  skip_if_not_installed("gmp")
  d <- exact_run_isoreg(exact_sizes()[["isoreg"]], seed = 1103L)
  exact_report(d)
  exact_expect_clean(d)
})

test_that("iso_calibrate() gives the exact curve, tied scores pooled", {
  skip_if_not_installed("gmp")
  d <- exact_run_calibrate(exact_sizes()[["iso_calibrate"]], seed = 1104L)
  exact_report(d)
  exact_expect_clean(d)
  # the summed weights of the curve: the exact sum (Inf only beyond the range)
  expect(sum(d$weight_note) == 0L,
         sprintf("iso_calibrate(): %d curves whose `weight` is not the exact sum, e.g.\n%s",
                 sum(d$weight_note),
                 paste0("  ", utils::head(d$call[d$weight_note], 5L), collapse = "\n")))
})

test_that("reliability_diagram() gives the exact CORP curve", {
  skip_if_not_installed("gmp")
  d <- exact_run_reliability(exact_sizes()[["reliability_diagram"]], seed = 1105L)
  exact_report(d)
  exact_expect_clean(d)
})

test_that("idr() gives the exact CDFs at every threshold and covariate value", {
  skip_if_not_installed("gmp")
  d <- exact_run_idr(exact_sizes()[["idr"]], seed = 1106L)
  exact_report(d)
  exact_expect_clean(d)
})
