#' What the GPU engine can do here
#'
#' Reports whether the CUDA engine was compiled into this installation,
#' whether a GPU can be used now and, when it cannot, why. It never starts
#' a computation on the GPU.
#'
#' This version of gpuiso builds the CPU engine only; `configure` already
#' looks for the CUDA toolkit and records what it found, which is shown
#' here.
#'
#' @return A list of class `"gpuiso_gpu_info"` with elements
#'   `cuda_compiled` (logical), `available` (logical: can `device = "gpu"`
#'   be used now), `reason` (why not, or `""`), `nvcc` and `nvcc_version`
#'   (the toolkit configure found, if any), `openmp` (logical) and
#'   `threads` (the threads the CPU engine will use for a batch).
#' @export
#' @examples
#' gpu_info()
gpu_info <- function() {
  b <- .Call(ffi_build_info)
  available <- FALSE
  reason <- if (!b$cuda_compiled) b$cuda_note else "no GPU engine"
  structure(
    list(cuda_compiled = b$cuda_compiled, available = available,
         reason = reason, nvcc = b$nvcc, nvcc_version = b$nvcc_version,
         openmp = b$openmp,
         threads = min(resolve_threads(), b$max_threads)),
    class = "gpuiso_gpu_info")
}

#' @export
print.gpuiso_gpu_info <- function(x, ...) {
  cat("gpuiso", format(utils::packageVersion("gpuiso")), "\n")
  cat("  CUDA compiled in: ", if (x$cuda_compiled) "yes" else "no", "\n", sep = "")
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
