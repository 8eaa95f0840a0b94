# gpuiso against independent references: exhaustive search over partitions,
# the KKT certificate, stats::isoreg, Iso::pava and the higher-precision
# ref_pava() on the paper's data families.

test_that("isotonic() matches brute force over all contiguous partitions (n <= 8)", {
  set.seed(101)
  for (n in 1:8) {
    for (trial in 1:20) {
      integer_data <- trial %% 2L == 0L
      y <- if (integer_data) as.double(sample(-3:3, n, replace = TRUE))
           else rnorm(n)
      w <- switch(trial %% 4L + 1L,
        NULL,
        as.double(sample(1:4, n, replace = TRUE)),
        { v <- as.double(sample(0:3, n, replace = TRUE)); v[sample.int(n, 1L)] <- 2; v },
        runif(n, 0.1, 1.1))
      if (!integer_data && !is.null(w) && any(w == 0)) w[w == 0] <- 0.5
      for (dec in c(FALSE, TRUE)) {
        z <- isotonic(y, w, decreasing = dec)
        b <- brute_fit(y, w, decreasing = dec)
        lab <- sprintf("n = %d, trial %d, decreasing = %s", n, trial, dec)
        expect_close(z, b, 1e-12, lab)
        # integer data and weights: block means are correctly rounded
        # quotients of exact sums, so equal means are equal doubles
        if (integer_data && (is.null(w) || all(w == round(w)))) {
          expect_identical(n_blocks(z), n_blocks(b), label = lab)
        }
        expect_true(is_monotone(z, dec), label = lab)
      }
    }
  }
})

test_that("brute force agrees on the small adversarial inputs", {
  for (nm in names(adversarial_inputs())) {
    y <- adversarial_inputs()[[nm]]
    if (length(y) > 8L || length(y) == 0L) next
    if (max(abs(y)) > 1e200) next # brute's plain sums overflow there
    for (dec in c(FALSE, TRUE)) {
      expect_close(isotonic(y, decreasing = dec), brute_fit(y, decreasing = dec),
                   1e-12, paste(nm, dec))
    }
  }
})

test_that("the KKT certificate holds on thousands of random inputs", {
  set.seed(202)
  worst <- 0
  for (trial in 1:3000) {
    p <- random_problem(300L)
    z <- isotonic(p$y, p$w, decreasing = p$decreasing)
    k <- kkt_residual(p$y, z, p$w, decreasing = p$decreasing)
    worst <- max(worst, k)
    if (!(k <= 1e-12) || !is_monotone(z, p$decreasing)) {
      fail(sprintf("trial %d: KKT residual %.3g, monotone %s", trial, k,
                   is_monotone(z, p$decreasing)))
    }
  }
  expect_lte(worst, 1e-12)
})

test_that("the KKT certificate holds on the adversarial inputs", {
  for (nm in names(adversarial_inputs())) {
    y <- adversarial_inputs()[[nm]]
    n <- length(y)
    ws <- list(none = NULL, ones = rep(1, n), uniform = seq(0.1, 1.1, length.out = n),
               exp = exp(seq(0, 8, length.out = n)),
               zeros = if (n > 1) rep(c(1, 0), length.out = n))
    for (wn in names(ws)) {
      w <- ws[[wn]]
      if (wn == "zeros" && is.null(w)) next
      for (dec in c(FALSE, TRUE)) {
        lab <- sprintf("%s, weights %s, decreasing = %s", nm, wn, dec)
        z <- isotonic(y, w, decreasing = dec)
        expect_true(all(is.finite(z)), label = lab)
        expect_true(is_monotone(z, dec), label = lab)
        expect_lte(kkt_residual(y, z, w, decreasing = dec), 1e-12, label = lab)
        expect_close(z, ref_fit(y, w, dec), 1e-12, lab)
      }
    }
  }
})

test_that("unweighted increasing fits agree with stats::isoreg", {
  set.seed(303)
  for (trial in 1:200) {
    n <- sample.int(500L, 1L)
    y <- switch(trial %% 3L + 1L, rnorm(n), as.double(sample(0:5, n, TRUE)),
                cumsum(rnorm(n)))
    expect_close(isotonic(y), stats::isoreg(y)$yf, 1e-10, paste("trial", trial))
  }
  for (f in setdiff(families(), c("collinear", "offset", "cliff"))) {
    y <- gen_family(f, 1e4, seed = 3L)
    expect_close(isotonic(y), stats::isoreg(y)$yf, 1e-9, f)
  }
})

test_that("weighted fits agree with Iso::pava in both directions", {
  skip_if_not_installed("Iso")
  set.seed(404)
  for (trial in 1:120) {
    n <- sample.int(300L, 1L)
    y <- switch(trial %% 3L + 1L, rnorm(n), as.double(sample(0:5, n, TRUE)),
                cumsum(rnorm(n)))
    w <- if (trial %% 2L) runif(n, 0.1, 1.1) else exp(runif(n, 0, 8))
    for (dec in c(FALSE, TRUE)) {
      expect_close(isotonic(y, w, decreasing = dec),
                   Iso::pava(y, w, decreasing = dec), 1e-10,
                   sprintf("trial %d, decreasing = %s", trial, dec))
    }
  }
  fams <- setdiff(families(), c("collinear", "offset", "cliff"))
  for (i in seq_along(fams)) {
    f <- fams[i]
    for (wk in c("uniform", "exp")[(i - 1L) %% 2L + 1L]) {
      y <- gen_family(f, 1e4, seed = 4L)
      w <- gen_weights(wk, 1e4, seed = 4L)
      for (dec in c(FALSE, TRUE)) {
        expect_close(isotonic(y, w, decreasing = dec),
                     Iso::pava(y, w, decreasing = dec), 1e-9,
                     paste(f, wk, dec))
      }
    }
  }
})

# One family x weighting x direction against ref_pava: values, block count,
# exact monotonicity and the KKT certificate.
check_against_ref <- function(f, wk, n, dec, seed, vjp = FALSE) {
  y <- gen_family(f, n, seed = seed)
  w <- gen_weights(wk, n, seed = seed)
  z <- isotonic(y, w, decreasing = dec)
  r <- ref_pava(y, w, decreasing = dec)
  lab <- sprintf("%s, weights %s, n = %g, decreasing = %s", f, wk, n, dec)
  expect_close(z, r$fit, 1e-12, lab)
  # blocks as runs of equal fitted value (the api's definition)
  expect_identical(n_blocks(z), n_blocks(r$fit), label = lab)
  expect_true(is_monotone(z, dec), label = lab)
  expect_lte(kkt_residual(y, z, w, decreasing = dec), 1e-12, label = lab)
  if (vjp) {
    # the forward pass's own partition, seen through the vjp, is the exact
    # one (it may have more blocks than runs: means less than an ulp apart)
    g <- gen_family("gaussian", n, seed = seed + 1L)
    v <- isotonic_vjp(y, g, w, decreasing = dec)
    e <- vjp_on_partition(y, z, g, w, r$starts)
    expect_lte(max(abs(v$y - e$y)), 1e-9 * max(1, abs(e$y)), label = paste(lab, "vjp"))
  }
}

test_that("paper families x weightings, n = 1e5, match the higher-precision reference", {
  for (f in families()) for (wk in c("none", "uniform", "exp")) {
    check_against_ref(f, wk, 1e5, FALSE, seed = 7L, vjp = TRUE)
  }
})

test_that("paper families x weightings x directions, n = 1e3 and 1e4", {
  for (n in c(1e3, 1e4)) {
    for (f in families()) for (wk in c("none", "uniform", "exp")) {
      for (dec in c(FALSE, TRUE)) check_against_ref(f, wk, n, dec, seed = n + 11L, vjp = n == 1e4)
    }
  }
})

test_that("paper families at n = 1e7", {
  skip_on_cran()
  n <- 1e7
  kinds <- c("none", "uniform", "exp")
  fams <- families()
  for (i in seq_along(fams)) {
    f <- fams[i]
    y <- gen_family(f, n, seed = 13L)
    for (wk in kinds) {
      w <- gen_weights(wk, n, seed = 13L)
      lab <- sprintf("%s, weights %s, n = 1e7", f, wk)
      # the CPU engine (test-gpu.R holds the GPU to the CPU at this size)
      z <- isotonic(y, w, device = "cpu")
      expect_true(is_monotone(z), label = lab)
      expect_lte(kkt_residual(y, z, w), 1e-12, label = lab)
      # each family once against ref_pava, the weighting rotating
      if (wk == kinds[(i - 1L) %% 3L + 1L]) {
        r <- ref_pava(y, w)
        expect_close(z, r$fit, 1e-12, lab)
        expect_identical(n_blocks(z), n_blocks(r$fit), label = lab)
        rm(r)
      }
      rm(z, w)
      gc()
    }
  }
})
