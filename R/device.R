#' What the GPU engine can do here
#'
#' Reports whether the CUDA layer was compiled into this installation, which
#' devices the CUDA runtime sees now, whether `device = "gpu"` can be used
#' and, when it cannot, why. It asks the driver each time it is called and
#' starts nothing on a device; loading the package touches no GPU.
#'
#' This version of gpuiso has the CPU engine only. When `configure` finds the
#' CUDA toolkit it compiles the device layer, so that `gpu_info()` can list
#' the devices, but `device = "gpu"` stays an error until the GPU engine
#' exists.
#'
#' @return A list of class `"gpuiso_gpu_info"` with elements
#'   `cuda_compiled` (logical), `available` (logical: can `device = "gpu"`
#'   be used now), `reason` (why not, or `""`), `devices` (a data frame
#'   with the `name`, `memory` in bytes and compute capability `cc` of each
#'   device the runtime sees), `runtime` and `driver` (CUDA versions, as
#'   strings, `NA` when unknown), `nvcc` and `nvcc_version` (the toolkit
#'   configure found, if any), `openmp` (logical) and `threads` (the threads
#'   the CPU engine will use for a batch).
#' @export
#' @examples
#' gpu_info()
gpu_info <- function() {
  b <- .Call(ffi_build_info)
  p <- .Call(ffi_gpu_probe)
  devices <- data.frame(name = p$name, memory = p$memory, cc = p$cc)
  reason <- if (!b$cuda_compiled) {
    b$cuda_note
  } else if (p$count < 0L) {
    paste("the CUDA runtime reports:", p$reason)
  } else if (p$count == 0L) {
    "the CUDA runtime sees no device"
  } else {
    "this version of gpuiso has no GPU engine yet"
  }
  structure(
    list(cuda_compiled = b$cuda_compiled, available = FALSE, reason = reason,
         devices = devices, runtime = cuda_version(p$runtime),
         driver = cuda_version(p$driver), nvcc = b$nvcc,
         nvcc_version = b$nvcc_version, openmp = b$openmp,
         threads = min(resolve_threads(), b$max_threads)),
    class = "gpuiso_gpu_info")
}

# CUDA's version code (1000 * major + 10 * minor) as "major.minor".
cuda_version <- function(v) {
  if (v <= 0L) return(NA_character_)
  sprintf("%d.%d", v %/% 1000L, (v %% 1000L) %/% 10L)
}

#' @export
print.gpuiso_gpu_info <- function(x, ...) {
  cat("gpuiso", format(utils::packageVersion("gpuiso")), "\n")
  cat("  CUDA compiled in: ", if (x$cuda_compiled) "yes" else "no",
      if (!is.na(x$runtime)) paste0(" (runtime ", x$runtime, ")"), "\n", sep = "")
  for (i in seq_len(nrow(x$devices))) {
    cat(sprintf("  device %d:         %s, %.0f GiB, compute capability %s\n", i - 1L,
                x$devices$name[i], x$devices$memory[i] / 2^30, x$devices$cc[i]))
  }
  cat("  GPU available:    ", if (x$available) "yes" else "no", "\n", sep = "")
  if (!x$available) cat("  why not:          ", x$reason, "\n", sep = "")
  cat("  CPU threads:      ", x$threads,
      if (!x$openmp) " (built without OpenMP)", "\n", sep = "")
  invisible(x)
}

# The engine a call will use: "cpu" or "gpu". `device = "gpu"` where the GPU
# cannot be used is an error that says why; "auto" takes the CPU then.
resolve_device <- function(device, call) {
  if (identical(device, "auto") || identical(device, "cpu")) return("cpu")
  if (!is.character(device) || length(device) != 1L || is.na(device) ||
      !device %in% c("auto", "cpu", "gpu")) {
    abort_input(sprintf("`device` must be one of \"auto\", \"cpu\" or \"gpu\", not %s.",
                        if (is.character(device) && length(device) == 1L)
                          encodeString(device, quote = "\"")
                        else describe_type(device)), call)
  }
  if (device == "gpu") {
    info <- gpu_info()
    if (!info$available) {
      abort_device(sprintf(paste0("`device = \"gpu\"` is not available: %s. ",
                                  "Use `device = \"cpu\"` or `\"auto\"`."),
                           info$reason), call)
    }
  }
  "cpu"
}
