#' What the GPU engine can do here
#'
#' Reports whether the CUDA engine was compiled into this installation,
#' which devices the CUDA runtime sees now, whether `device = "gpu"` can be
#' used and, when it cannot, why. It asks the driver each time it is called;
#' loading the package touches no GPU.
#'
#' @section The GPU engine:
#' When `configure` finds the CUDA toolkit at installation, gpuiso compiles
#' a second engine for NVIDIA GPUs. The fit is the slope sequence of the
#' lower convex hull of the cumulative sums of the weights and of the
#' weighted values; the GPU builds the hulls of short chunks of each
#' problem in parallel and merges neighbouring hulls level by level, keeping
#' a merged hull as a list of segments of the chunk hulls instead of copying
#' their vertices (Raikova, 2026, \doi{10.48550/arXiv.2610.24038}). Long
#' problems are split over the whole device, and short ones are packed
#' several to a warp, so one call serves one long vector as well as a batch
#' of many short problems. Its double-precision fits agree with the CPU
#' engine's to about \eqn{10^{-10}} relative to \eqn{1 + |z|}, and are
#' exactly monotone.
#'
#' `device = "gpu"` uses it whenever `gpu_info()$available` is `TRUE`:
#' CUDA was compiled in and the runtime sees at least one device.
#' `device = "auto"`, the default, uses it only for calls with at least
#' `getOption("gpuiso.gpu_min_n")` elements in all
#' (`r format(gpu_min_n_default, scientific = FALSE)` unless set),
#' because below that copying the data to the device and back costs more
#' than the CPU's linear pass; smaller calls do not even ask the driver.
#' Above it, a batch of many problems stays on the CPU where the CPU
#' engine's threads (`getOption("gpuiso.threads")`) are expected to be
#' faster: on the H200 host where this was measured, the GPU from R costs
#' about 0.25 ms plus 1.2 ns per element and a thread of the CPU engine
#' about 40 ns per element, so 16 threads win on batches of up to some
#' \eqn{10^5} elements, and on larger ones only 30 threads or more would.
#' Where your machine differs, time both devices and set `device` or the
#' option.
#'
#' The engine keeps a workspace in device memory between calls, so that a
#' loop of calls does not allocate each time; `gpu_info()$workspace` says
#' how large it is, and [gpu_release()] gives it back.
#'
#' @section Data in R's memory:
#' R's vectors live in pageable host memory, which the GPU's copy engines
#' read and write several times more slowly than page-locked ("pinned")
#' memory. So the data cross in pieces of up to 8 MiB through a ring of four
#' pinned staging buffers (`gpu_info()$pinned` bytes, kept between calls
#' and given back by [gpu_release()]): host threads fill one buffer, or
#' drain it into the result, while the bus moves the others. With
#' `precision = "single"` the host threads round to float32 as they fill
#' the buffers, so half the bytes cross. The threads are those of
#' `getOption("gpuiso.threads")`. [gpu_timings()] shows where the last
#' call's time went.
#'
#' @return A list of class `"gpuiso_gpu_info"` with elements
#'   `cuda_compiled` (logical), `available` (logical: can `device = "gpu"`
#'   be used now), `reason` (why not, or `""`), `devices` (a data frame
#'   with the `name`, `memory` in bytes and compute capability `cc` of each
#'   device the runtime sees), `workspace` (the bytes of device memory the
#'   engine's workspace holds now, 0 when none), `pinned` (the bytes of
#'   pinned host memory its staging buffers hold), `runtime` and `driver`
#'   (CUDA versions, as strings, `NA` when unknown), `nvcc` and
#'   `nvcc_version` (the toolkit configure found, if any), `openmp`
#'   (logical) and `threads` (the threads the CPU engine will use for a
#'   batch).
#' @seealso [gpu_release()], [gpu_timings()]; the `device` and `precision`
#'   arguments of [isotonic()].
#' @export
#' @examples
#' gpu_info()
gpu_info <- function() {
  s <- gpu_status()
  b <- s$build
  p <- s$probe
  devices <- data.frame(name = p$name, memory = p$memory, cc = p$cc)
  mem <- if (s$available) gpu_memory() else list(workspace = 0, pinned = 0)
  structure(
    list(cuda_compiled = b$cuda_compiled, available = s$available,
         reason = s$reason, devices = devices, workspace = mem$workspace,
         pinned = mem$pinned,
         runtime = cuda_version(p$runtime), driver = cuda_version(p$driver),
         nvcc = b$nvcc, nvcc_version = b$nvcc_version, openmp = b$openmp,
         threads = min(resolve_threads(), b$max_threads)),
    class = "gpuiso_gpu_info")
}

#' Give the GPU engine's memory back
#'
#' The GPU engine keeps a workspace in device memory from one call to the
#' next, sized for the largest work so far, and a ring of pinned host
#' buffers for its transfers, so that repeated calls do not allocate.
#' `gpu_release()` frees both, for example to hand the memory to another
#' program after a large fit; the next call on the GPU allocates again.
#' Without CUDA it does nothing.
#'
#' @return `NULL`, invisibly.
#' @seealso [gpu_info()], whose `workspace` and `pinned` elements are the
#'   sizes held.
#' @export
#' @examples
#' gpu_release()
#' gpu_info()$workspace
gpu_release <- function() {
  .Call(ffi_gpu_release)
  invisible(NULL)
}

# Whether the GPU engine can run now, and why not: CUDA compiled in and at
# least one device seen by the runtime. Asks the driver; caches nothing.
# With `detail`, also each device's name, memory and compute capability.
gpu_status <- function(detail = TRUE) {
  b <- .Call(ffi_build_info)
  p <- .Call(ffi_gpu_probe, detail)
  reason <- if (!b$cuda_compiled) {
    b$cuda_note
  } else if (p$count < 0L) {
    paste("the CUDA runtime reports:", p$reason)
  } else if (p$count == 0L) {
    "the CUDA runtime sees no device"
  } else {
    ""
  }
  list(build = b, probe = p, available = !nzchar(reason), reason = reason)
}

# The engine's device workspace, its pinned staging and the device's memory,
# in bytes: list(workspace, pinned, free, total, error); free and total NA
# when unknown.
gpu_memory <- function() .Call(ffi_gpu_memory)

#' Where the time of the last GPU call went
#'
#' The GPU engine times the stages of each call on data in R's memory
#' ([isotonic()], [isotonic_vjp()], [isoreg()], the GPU paths of
#' [iso_calibrate()] and [idr()]); `gpu_timings()` returns those of the
#' last one, so that you can see what bounds a call: the bus, the host's
#' memory, or the device.
#'
#' The copies overlap the host's work with the bus (see [gpu_info()]):
#' `copy_in` runs until the host has handed the last piece of the data to
#' the bus, and `copy_out` until the last piece of the results has been
#' written into R's memory. `convert` is the part of both that the host
#' threads spent copying between R's vectors and the pinned buffers
#' (rounding to and from float32 for `precision = "single"`), summed over
#' pieces, not threads. `prefault` is the time the host threads spent
#' touching the fresh pages of the result while the kernels ran (the
#' operating system's first-touch cost, which would otherwise slow the copy
#' out). `device` is the rest of the call: the kernels, planning, and the
#' tail of the copy in. The time R spends checking the arguments and
#' allocating the results is not included: time the whole call with
#' [system.time()] for that.
#'
#' @return A list of class `"gpuiso_gpu_timings"` with the times in
#'   milliseconds `total`, `copy_in`, `device`, `copy_out`, `convert` and
#'   `prefault`, and the bytes `bytes_in` and `bytes_out` that crossed the
#'   bus; all 0 before the first GPU call (and always without CUDA).
#' @seealso [gpu_info()].
#' @export
#' @examples
#' if (gpu_info()$available) {
#'   y <- cumsum(rnorm(1e6))
#'   fit <- isotonic(y, device = "gpu")
#'   print(gpu_timings())
#' }
gpu_timings <- function() {
  structure(as.list(.Call(ffi_gpu_last_times)), class = "gpuiso_gpu_timings")
}

#' @export
print.gpuiso_gpu_timings <- function(x, ...) {
  check_dots(..., fn = "print()")
  rate <- function(bytes, ms) {
    if (bytes > 0 && ms > 0) sprintf(", %.1f GB/s", bytes / ms / 1e6) else ""
  }
  cat(sprintf("last GPU call: %.2f ms\n", x$total))
  cat(sprintf("  copy in:   %8.2f ms  (%s%s)\n", x$copy_in, format_bytes(x$bytes_in),
              rate(x$bytes_in, x$copy_in)))
  cat(sprintf("  device:    %8.2f ms  (kernels, planning, waiting)\n", x$device))
  cat(sprintf("  copy out:  %8.2f ms  (%s%s)\n", x$copy_out, format_bytes(x$bytes_out),
              rate(x$bytes_out, x$copy_out)))
  cat(sprintf("  touching the result's pages: %.2f ms\n", x$prefault))
  cat(sprintf("  of the copies, host threads converting: %.2f ms\n", x$convert))
  invisible(x)
}

# Kernel times (ms) of `reps` forward passes on data copied to the device
# once: for bench/, not exported.
gpu_bench <- function(y, w = NULL, offsets = c(0, length(y)),
                      decreasing = FALSE, single = FALSE, reps = 10L) {
  res <- .Call(ffi_gpu_bench, as.double(y), if (!is.null(w)) as.double(w),
               as.double(offsets), decreasing, single, as.integer(reps))
  res$ms
}

# CUDA's version code (1000 * major + 10 * minor) as "major.minor".
cuda_version <- function(v) {
  if (v <= 0L) return(NA_character_)
  sprintf("%d.%d", v %/% 1000L, (v %% 1000L) %/% 10L)
}

#' @export
print.gpuiso_gpu_info <- function(x, ...) {
  check_dots(..., fn = "print()")
  cat("gpuiso", format(utils::packageVersion("gpuiso")), "\n")
  cat("  CUDA compiled in: ", if (x$cuda_compiled) "yes" else "no",
      if (!is.na(x$runtime)) paste0(" (runtime ", x$runtime, ")"), "\n", sep = "")
  for (i in seq_len(nrow(x$devices))) {
    cat(sprintf("  device %d:         %s, %.0f GiB, compute capability %s\n", i - 1L,
                x$devices$name[i], x$devices$memory[i] / 2^30, x$devices$cc[i]))
  }
  cat("  GPU available:    ", if (x$available) "yes" else "no", "\n", sep = "")
  if (!x$available) cat("  why not:          ", x$reason, "\n", sep = "")
  if (x$available) {
    cat(sprintf("  GPU workspace:    %.1f MiB, and %.1f MiB of pinned host memory\n",
                x$workspace / 2^20, x$pinned / 2^20))
  }
  cat("  CPU threads:      ", x$threads,
      if (!x$openmp) " (built without OpenMP)", "\n", sep = "")
  invisible(x)
}

# Below this many elements in one call, device = "auto" stays on the CPU
# and does not even ask the driver: the launches and the copies cost more
# than the CPU's linear pass. Measured on the H200 host (bench/gpu/crossover.R,
# bench/gpu/RESULTS-e2e.md): at 2^14 elements the GPU call from R takes less
# time than the CPU engine on 8 or 16 threads, for one problem and for
# batches of 16- and 1,000-element problems alike; at 2^12 the CPU is
# faster in all three. options(gpuiso.gpu_min_n =) overrides it.
gpu_min_n_default <- 2^14 # repeated in src/api_isotonic.c (below_gpu_min_n())

# The same for the pipelines that sort on the device (isoreg(),
# iso_calibrate(), reliability_diagram()), whose crossover was measured at
# 2^16 (bench/isoreg-RESULTS.md, bench/calibration-RESULTS.md).
gpu_sort_min_n_default <- 2^16

# Above that size, whether a batch of n elements in nprob problems is
# expected to run faster on the GPU than on the CPU engine's threads. The
# CPU engine spreads a batch's problems over its threads; the GPU's time
# from R is bound by the host's copies. Costs fitted to the H200 host's
# measurements (bench/gpu/results/e2e/crossover.csv): the GPU about 0.25 ms
# plus 1.2 ns per element; the CPU about 0.06 ms plus 40 ns per element and
# thread for batches of 16 to 1,000 elements (the threads share the memory
# bus). So the GPU loses on batches of up to some 10^5 elements on 16
# threads, and on larger ones only with some 30 threads or more. (One
# long problem is shared by the CPU's threads, but at 16 threads it still
# costs more than 1.2 ns per element: above gpu_min_n the GPU is faster.)
gpu_beats_cpu <- function(n, nprob, threads) {
  cpu <- 0.06 + n * 40e-6 / max(1, min(threads, nprob))
  gpu <- 0.25 + n * 1.2e-6
  gpu < cpu
}

gpu_min_n <- function(option = "gpuiso.gpu_min_n", default = gpu_min_n_default) {
  m <- getOption(option, default)
  if (!is.numeric(m) || length(m) != 1L || is.na(m) || m < 0) {
    abort_input(sprintf("`options(%s)` must be a non-negative number.", option),
                NULL)
  }
  m
}

# The engine a call with `n` elements in all (in `nprob` problems) will
# use: "cpu" or "gpu". `device = "gpu"` where the GPU cannot be used is an
# error that says why; "auto" takes the GPU when it can be used, the work is
# large enough and expected to run faster there, and asks the driver only
# then.
resolve_device <- function(device, n, call, min_n = gpu_min_n(), nprob = 1) {
  if (identical(device, "cpu")) return("cpu")
  if (identical(device, "auto")) {
    if (n < min_n) return("cpu")
    if (nprob > 1 && !gpu_beats_cpu(n, nprob, resolve_threads())) return("cpu")
    return(if (gpu_status(detail = FALSE)$available) "gpu" else "cpu")
  }
  if (!identical(device, "gpu")) {
    abort_input(sprintf("`device` must be one of \"auto\", \"cpu\" or \"gpu\", not %s.",
                        if (is.character(device) && length(device) == 1L)
                          encodeString(device, quote = "\"")
                        else describe_type(device)), call, arg = "device")
  }
  s <- gpu_status(detail = FALSE)
  if (!s$available) {
    abort_device(sprintf(paste0("`device = \"gpu\"` is not available: %s. ",
                                "Use `device = \"cpu\"` or `\"auto\"`."),
                         s$reason), call)
  }
  "gpu"
}
