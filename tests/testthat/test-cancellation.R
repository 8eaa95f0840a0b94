# Blocks whose sums cancel: 1e16, 1, -1e16 pool into one block of mean 1/3,
# whose compensated sum has hi part 0 and lo part 1. A next value below 1/3
# must pool with it. The pooling test's band scales with the hi parts
# alone, and kept such a value apart while lo parts could grow past it (the
# spread then clamped the block down to it): every path returned 0.2 where
# the fit is 0.3. Merges now keep each lo part within 2^-32 of its hi part.

cancel <- c(1e16, 1, -1e16)

test_that("a value below a cancelled block's mean pools with it (CPU paths)", {
  for (v in c(0.2, 0.25, -3)) {
    y <- c(cancel, v)
    want <- rep((1 + v) / 4, 4) # the exact mean, 1 + v and / 4 exact here
    expect_equal(isotonic(y, device = "cpu"), want, tolerance = 1e-15)
    expect_equal(isotonic(y, rep(2, 4), device = "cpu"), want,
                 tolerance = 1e-15)
    # decreasing: the mirror
    expect_equal(isotonic(-y, decreasing = TRUE, device = "cpu"), -want,
                 tolerance = 1e-15)
    # a batch of short problems (the lanes of lockstep.c)
    m <- matrix(y, 4, 300)
    fm <- isotonic(m, device = "cpu")
    expect_equal(fm, matrix(want, 4, 300), tolerance = 1e-15)
    expect_identical(fm[, 300], isotonic(y, device = "cpu"))
    fw <- isotonic(m, matrix(3, 4, 300), device = "cpu")
    expect_equal(fw, matrix(want, 4, 300), tolerance = 1e-15)
    expect_identical(fw[, 300], isotonic(y, rep(3, 4), device = "cpu"))
  }
  # a value above the mean stays apart
  expect_equal(isotonic(c(cancel, 0.5), device = "cpu"), c(1, 1, 1, 1.5) / 3,
               tolerance = 1e-15)
})

test_that("a cancelled block in a long problem pools, on 1 and 2 threads", {
  skip_on_cran()
  old <- options(gpuiso.threads = 1)
  on.exit(options(old))
  n0 <- 70000 # past GI_SPLIT_MIN: split.c's pieces and their merge
  head <- seq(-1e17, -2e16, length.out = n0)
  y <- c(head, cancel, 0.2)
  w <- rep(1, length(y))
  for (k in 1:2) {
    options(gpuiso.threads = k)
    f <- isotonic(y, device = "cpu")
    expect_identical(f[seq_len(n0)], head)
    expect_equal(f[n0 + 1:4], rep(0.3, 4), tolerance = 1e-15)
    expect_equal(isotonic(y, w, device = "cpu")[n0 + 1:4], rep(0.3, 4),
                 tolerance = 1e-15)
    # the block across the middle, where two pieces meet (the merge pools
    # it), at every offset around it
    for (at in n0 / 2 + (-4:2)) {
      y2 <- c(head[seq_len(at)], cancel, 0.2, head[(at + 1):n0] + 3e17)
      f2 <- isotonic(y2, device = "cpu")
      expect_equal(f2[at + 1:4], rep(0.3, 4), tolerance = 1e-15)
      expect_identical(f2[-(at + 1:4)], y2[-(at + 1:4)])
    }
  }
})

# The GPU engine decides on the cumulative sums' hull (src/cuda/dd.cuh,
# convex_at()), whose error bound scales with the points' coordinates, not
# with the hi parts of block sums: it should not share the CPU's fault, and
# here it is held to the CPU's answer within its documented accuracy.
test_that("the GPU engine pools a cancelled block as the CPU does", {
  skip_if_not(gpu_available(), "no usable GPU engine here")
  near <- function(f, want) {
    expect_lt(max(abs(f - want) / (1 + abs(want))), 1e-10)
  }
  for (v in c(0.2, 0.25, -3)) {
    y <- c(cancel, v)
    want <- rep((1 + v) / 4, 4)
    near(isotonic(y, device = "gpu"), want)
    near(isotonic(y, rep(2, 4), device = "gpu"), want)
    near(isotonic(-y, decreasing = TRUE, device = "gpu"), -want)
    m <- matrix(y, 4, 300)
    near(isotonic(m, device = "gpu"), matrix(want, 4, 300))
    near(isotonic(m, matrix(3, 4, 300), device = "gpu"), matrix(want, 4, 300))
  }
  near(isotonic(c(cancel, 0.5), device = "gpu"), c(1, 1, 1, 1.5) / 3)
  # a long problem: its chunks and their merges. The prefix sums reach
  # 4e21 in size, which double-double pairs hold to about 5e-11, so the
  # cancelled block's mean is good to about that, not to 1e-10 of 1.3.
  n0 <- 70000
  head <- seq(-1e17, -2e16, length.out = n0)
  y <- c(head, cancel, 0.2)
  for (w in list(NULL, rep(1, length(y)))) {
    f <- isotonic(y, w, device = "gpu")
    expect_false(is.unsorted(f))
    expect_lt(max(abs(f[n0 + 1:4] - 0.3)), 1e-9)
    expect_lt(max(abs(f[seq_len(n0)] / head - 1)), 1e-10)
  }
})
