# gpu_info(), device selection and the thread option.

test_that("gpu_info() has the documented shape", {
  info <- gpu_info()
  expect_s3_class(info, "gpuiso_gpu_info")
  expect_true(is.list(info))
  expect_true(all(c("cuda_compiled", "available", "reason", "devices",
                    "workspace", "pinned", "runtime", "driver", "nvcc", "nvcc_version",
                    "openmp", "threads") %in% names(info)))
  expect_true(is.logical(info$cuda_compiled) && length(info$cuda_compiled) == 1L &&
                !is.na(info$cuda_compiled))
  expect_true(is.logical(info$available) && length(info$available) == 1L &&
                !is.na(info$available))
  expect_true(is.logical(info$openmp) && length(info$openmp) == 1L)
  expect_true(is.character(info$reason) && length(info$reason) == 1L)
  expect_true(is.numeric(info$threads) && length(info$threads) == 1L &&
                info$threads >= 1)
  if (!info$cuda_compiled) expect_false(info$available)
  if (!info$available) expect_true(nzchar(info$reason))
  expect_output(print(info), "CUDA compiled in")
  expect_output(print(info), "CPU threads")
})

test_that("the default threads are half the processors, 2 under R CMD check, or GPUISO_THREADS", {
  dt <- gpuiso:::default_threads
  expect_identical(dt(c("", ""), procs = 16L), 8L)
  expect_identical(dt(c("", ""), procs = 3L), 1L)
  expect_identical(dt(c("", ""), procs = 1L), 1L)
  expect_identical(dt(c("", "TRUE"), procs = 16L), 2L)
  expect_identical(dt(c("", "true"), procs = 16L), 2L)
  expect_identical(dt(c("", "false"), procs = 16L), 8L)
  expect_identical(dt(c("12", ""), procs = 16L), 12L)
  expect_identical(dt(c("12", "TRUE"), procs = 16L), 2L)
  expect_identical(dt(c("1", "TRUE"), procs = 16L), 1L)
  for (bad in c("0", "-2", "2.5", "two", "NA")) {
    expect_warning(t <- dt(c(bad, ""), procs = 16L), "GPUISO_THREADS must be a positive whole number")
    expect_identical(t, 8L)
  }
  # what the package set when it loaded, under this test run
  expect_true(is.integer(getOption("gpuiso.threads")))
})

test_that("gpu_info()$threads follows options(gpuiso.threads)", {
  expect_identical(as.integer(with_opts(list(gpuiso.threads = 1L), gpu_info()$threads)), 1L)
  t2 <- with_opts(list(gpuiso.threads = 2L), gpu_info()$threads)
  expect_true(t2 %in% c(1L, 2L))
  if (gpu_info()$openmp) expect_lte(t2, 2L)
})

test_that("device = 'gpu' without a usable GPU is a classed error", {
  skip_if(gpu_info()$available, "a GPU engine is available")
  expect_error(isotonic(c(3, 1, 2), device = "gpu"), class = "gpuiso_error_device")
  expect_error(isotonic(c(3, 1, 2), device = "gpu"), regexp = "gpu.*not available",
               class = "gpuiso_error_device")
  expect_error(isoreg(c(3, 1, 2), device = "gpu"), class = "gpuiso_error_device")
  expect_error(isotonic_vjp(c(3, 1, 2), c(1, 1, 1), device = "gpu"),
               class = "gpuiso_error_device")
  expect_error(with_opts(list(gpuiso.device = "gpu"), isotonic(c(3, 1, 2))),
               class = "gpuiso_error_device")
  e <- tryCatch(isotonic(1, device = "gpu"), error = identity)
  expect_s3_class(e, "gpuiso_error")
  expect_false(inherits(e, "gpuiso_error_input"))
})

test_that("device = 'cpu' and 'auto' work everywhere and agree", {
  set.seed(61)
  y <- rnorm(500); w <- runif(500); g <- rnorm(500)
  expect_identical(isotonic(y, w, device = "cpu"), isotonic(y, w, device = "auto"))
  expect_identical(isotonic_vjp(y, g, w, device = "cpu"),
                   isotonic_vjp(y, g, w, device = "auto"))
  fc <- isoreg(y, device = "cpu"); fa <- isoreg(y, device = "auto")
  expect_identical(fc$yf, fa$yf)
  expect_identical(fc$device, "cpu")
  # 500 points are below the crossover: "auto" stays on the CPU
  expect_identical(fa$device, "cpu")
  expect_identical(with_opts(list(gpuiso.device = "cpu"), isotonic(y)), isotonic(y))
})

test_that("gpu_info() lists the devices the CUDA runtime sees, and says why not", {
  info <- gpu_info()
  expect_s3_class(info$devices, "data.frame")
  expect_named(info$devices, c("name", "memory", "cc"))
  expect_true(is.character(info$runtime) && length(info$runtime) == 1L)
  expect_true(is.character(info$driver) && length(info$driver) == 1L)
  if (!info$cuda_compiled) {
    expect_identical(nrow(info$devices), 0L)
    expect_true(is.na(info$runtime))
  } else {
    expect_match(info$runtime, "^[0-9]+\\.[0-9]+$")
    if (nrow(info$devices) > 0L) {
      expect_true(all(info$devices$memory > 0))
      expect_match(info$devices$cc, "^[0-9]+\\.[0-9]+$")
      expect_output(print(info), "device 0:")
    }
  }
  # available exactly when CUDA is compiled in and a device is seen; a
  # reason exactly when not
  expect_identical(info$available, info$cuda_compiled && nrow(info$devices) > 0L)
  expect_identical(nzchar(info$reason), !info$available)
  expect_true(is.numeric(info$workspace) && length(info$workspace) == 1L &&
                info$workspace >= 0)
  if (!info$available) expect_identical(info$workspace, 0)
  expect_true(is.numeric(info$pinned) && length(info$pinned) == 1L && info$pinned >= 0)
  if (!info$available) expect_identical(info$pinned, 0)
  if (info$available) expect_output(print(info), "GPU workspace.*pinned host memory")
})

test_that("gpu_timings() has the documented shape, and prints", {
  t <- gpu_timings()
  expect_s3_class(t, "gpuiso_gpu_timings")
  expect_identical(names(t), c("total", "copy_in", "device", "copy_out", "convert",
                               "prefault", "bytes_in", "bytes_out"))
  expect_true(all(vapply(t, function(v) is.double(v) && length(v) == 1L && v >= 0,
                         logical(1))))
  if (!gpu_info()$cuda_compiled) expect_true(all(unlist(t) == 0))
  expect_output(print(t), "last GPU call: .* ms")
  expect_output(print(t), "copy in")
  expect_error(print(t, digits = 3), class = "gpuiso_error_input")
})
