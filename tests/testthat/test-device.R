# gpu_info(), device selection and the option of threads (R/device.R).

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

test_that("isotonic()'s quick path reads options(gpuiso.device) only for a missing device", {
  # the quick path takes a missing device from the option in C; a device
  # given as NULL is not missing, and an option with attributes is not a
  # plain "cpu"
  y <- c(3, 1, 2)
  expect_error(isotonic(y, device = NULL), regexp = "`device` must be one of",
               class = "gpuiso_error_input")
  expect_error(with_opts(list(gpuiso.device = "cpu"), isotonic(y, device = NULL)),
               regexp = "not NULL", class = "gpuiso_error_input")
  expect_identical(with_opts(list(gpuiso.device = "gpu"), isotonic(y, device = "cpu")),
                   c(2, 2, 2))
  expect_error(with_opts(list(gpuiso.device = structure("cpu", class = "foo")), isotonic(y)),
               regexp = "`device` must be one of", class = "gpuiso_error_input")
  expect_error(with_opts(list(gpuiso.device = c("cpu", "gpu")), isotonic(y)),
               regexp = "`device` must be one of", class = "gpuiso_error_input")
  expect_error(with_opts(list(gpuiso.device = "CPU"), isotonic(y)),
               regexp = "`device` must be one of", class = "gpuiso_error_input")
  expect_identical(with_opts(list(gpuiso.device = "auto"), isotonic(y)), c(2, 2, 2))
  expect_identical(with_opts(list(gpuiso.device = NULL), isotonic(y)), c(2, 2, 2))
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

test_that("device = 'auto' gives the CPU's result", {
  set.seed(120)
  y <- rnorm(2000); w <- runif(2000); g <- rnorm(2000)
  zc <- isotonic(y, w, device = "cpu")
  # a crossover of 0 makes "auto" ask for the GPU even here
  za <- with_opts(list(gpuiso.gpu_min_n = 0), isotonic(y, w, device = "auto"))
  x <- runif(2000)
  fa <- with_opts(list(gpuiso.gpu_min_n = 0), isoreg(x, y, device = "auto"))
  # x in order leaves the GPU no sort to do: "auto" fits it on the CPU
  expect_identical(with_opts(list(gpuiso.gpu_min_n = 0), isoreg(y, device = "auto"))$device,
                   "cpu")
  va <- with_opts(list(gpuiso.gpu_min_n = 0), isotonic_vjp(y, g, w, device = "auto"))
  vc <- isotonic_vjp(y, g, w, device = "cpu")
  if (gpu_available()) {
    expect_close(za, zc, 1e-10, "auto on the GPU")
    expect_identical(fa$device, "gpu")
    expect_close(va$y, vc$y, 1e-10, "auto vjp on the GPU")
  } else {
    expect_identical(za, zc)
    expect_identical(fa$device, "cpu")
    expect_identical(va, vc)
  }
  # below the crossover "auto" is the CPU, wherever it runs
  expect_identical(with_opts(list(gpuiso.gpu_min_n = Inf), isotonic(y, w, device = "auto")), zc)
  expect_identical(with_opts(list(gpuiso.gpu_min_n = Inf), isoreg(x, y, device = "auto"))$device,
                   "cpu")
  expect_identical(isoreg(x, y, device = "auto")$device, "cpu") # 2000 < default
})

test_that("device = 'auto' keeps a batch on the CPU only where its threads are faster", {
  beats <- gpuiso:::gpu_beats_cpu
  # cells of the H200 host's crossover.csv with a clear winner: the GPU
  # ahead of 16 threads on 16 x 4^7 and 1000 x 4^6, behind on 16 x 4^6
  expect_true(beats(16 * 4^7, 4^7, 16L))
  expect_true(beats(1000 * 4^6, 4^6, 16L))
  expect_true(beats(1e7, 1e4, 8L))
  expect_false(beats(16 * 4^6, 4^6, 16L))
  # a batch spread over 32 or 64 threads
  expect_false(beats(1e7, 1e4, 64L))
  expect_false(beats(1e6, 1e4, 32L))
  # more threads never make the GPU look better; more problems never do either
  n <- 2^(10:24)
  for (t in c(1L, 2L, 8L, 32L)) {
    expect_false(any(beats(n, 1e6, t * 2L) & !beats(n, 1e6, t)))
  }
  # "auto" on a batch with 64 threads stays on the CPU, with a GPU or without
  y <- matrix(rnorm(2e5), 100)
  expect_identical(with_opts(list(gpuiso.gpu_min_n = 0, gpuiso.threads = 64L),
                             gpuiso:::resolve_device("auto", length(y), NULL,
                                                     nprob = ncol(y))), "cpu")
})

test_that("the crossover of device = 'auto' is an option, checked", {
  default <- gpuiso:::gpu_min_n_default
  expect_true(is.numeric(default) && is.finite(default) && default > 0)
  expect_identical(with_opts(list(gpuiso.gpu_min_n = NULL), gpuiso:::gpu_min_n()), default)
  expect_identical(with_opts(list(gpuiso.gpu_min_n = 1e3), gpuiso:::gpu_min_n()), 1e3)
  for (bad in list(-1, NA_real_, "many", c(1, 2))) {
    expect_error(with_opts(list(gpuiso.gpu_min_n = bad), isotonic(runif(10))),
                 "gpuiso.gpu_min_n", class = "gpuiso_error_input")
  }
  # "cpu" never reads it
  expect_identical(with_opts(list(gpuiso.gpu_min_n = -1), isotonic(c(2, 1), device = "cpu")),
                   c(1.5, 1.5))
})

test_that("gpu_info() and gpu_timings() print as before", {
  # fixed objects of the documented shape: the machine's own differ; the
  # package's version is left out
  no_version <- function(x) sub("^gpuiso [0-9.]+ *$", "gpuiso <version>", x)
  devices <- data.frame(name = "NVIDIA H200", memory = 140 * 2^30, cc = "9.0")
  gpu <- structure(list(cuda_compiled = TRUE, available = TRUE, reason = "",
                        devices = devices, workspace = 96 * 2^20, pinned = 64 * 2^20,
                        runtime = "12.4", driver = "12.4", nvcc = "/usr/local/cuda/bin/nvcc",
                        nvcc_version = "12.4", openmp = TRUE, threads = 16L),
                   class = "gpuiso_gpu_info")
  expect_snapshot(cran = TRUE, print(gpu), transform = no_version)
  cpu <- structure(list(cuda_compiled = FALSE, available = FALSE,
                        reason = "CUDA was turned off at installation (GPUISO_CUDA=no or --without-cuda)",
                        devices = devices[0L, ], workspace = 0, pinned = 0,
                        runtime = NA_character_, driver = NA_character_, nvcc = "",
                        nvcc_version = "", openmp = FALSE, threads = 2L),
                   class = "gpuiso_gpu_info")
  expect_snapshot(cran = TRUE, print(cpu), transform = no_version)
  timings <- structure(list(total = 21.5, copy_in = 8.25, device = 3.5, copy_out = 8.75,
                            convert = 1.25, prefault = 0.5, bytes_in = 8e8, bytes_out = 4e8),
                       class = "gpuiso_gpu_timings")
  expect_snapshot(cran = TRUE, print(timings))
})
