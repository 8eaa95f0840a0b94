# The dispatch of R/engine.R: on_device(), the one hand-over from the GPU to
# the CPU that every GPU pipeline goes through, and engine_fit() on the CPU.
# (The GPU's side of each pipeline is in test-gpu.R.)

test_that("on_device() runs the GPU's expression, else the CPU's, and says which solved", {
  on_device <- gpuiso:::on_device
  ran <- character()
  gpu <- function(res) {
    ran <<- c(ran, "gpu")
    res
  }
  cpu <- function(res = list(fit = 1)) {
    ran <<- c(ran, "cpu")
    res
  }
  # the GPU solves: the CPU's expression is never evaluated
  r <- on_device("gpu", gpu(list(fit = 2, status = "ok")), cpu())
  expect_identical(r, list(fit = 2, status = "ok", device = "gpu"))
  expect_identical(ran, "gpu")
  # the engine hands the problem back ("range"), or the GPU path declines
  # it beforehand (NULL): the CPU solves
  for (res in list(list(fit = 2, status = "range"), NULL)) {
    ran <- character()
    expect_identical(on_device("gpu", gpu(res), cpu()), list(fit = 1, device = "cpu"))
    expect_identical(ran, c("gpu", "cpu"))
  }
  # on the CPU the GPU's expression is never evaluated
  ran <- character()
  expect_identical(on_device("cpu", gpu(list(status = "ok")), cpu()),
                   list(fit = 1, device = "cpu"))
  expect_identical(ran, "cpu")
  # a device that the CPU's step records is kept (points pooled on the
  # CPU, then fitted on the GPU)
  expect_identical(on_device("gpu", NULL, list(fit = 1, device = "gpu"))$device, "gpu")
  # a failure of the engine is an error, not a hand-over
  expect_error(on_device("gpu", stop("engine failed"), cpu()), "engine failed")
})

test_that("engine_fit() on the CPU gives the fit, the block starts and its device", {
  r <- gpuiso:::engine_fit(c(3, 1, 2, 5), NULL, c(0, 4), decreasing = FALSE, starts = TRUE)
  expect_identical(r$fit, c(2, 2, 2, 5))
  expect_identical(as.logical(r$starts), c(TRUE, FALSE, FALSE, TRUE))
  expect_identical(r$device, "cpu")
  s <- gpuiso:::engine_fit(c(3, 1, 2, 5) + 0.1, NULL, c(0, 4), decreasing = FALSE,
                           precision = "single")
  expect_identical(s$fit, f32(c(2.1, 2.1, 2.1, 5.1)))
  expect_identical(s$device, "cpu")
})
