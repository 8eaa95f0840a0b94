# What an R call of isotonic() costs besides the fit: the closure and its arguments, timed
# on two weighted points against the bare .Call() of its quick path and against closures of
# the same kind with less in them. The closures call the same C function with the same
# inputs, so the differences are R's: matching ten formals, their default promises,
# forcing them, missing(). monotone::monotone(y, w) on the same points for comparison.
# Prints one line per round, in microseconds per call.
#
# Usage (from the repository root): Rscript bench/call-overhead.R [LIB]
#   LIB  library that holds gpuiso (default: the normal library paths)
# monotone comes from bench/.lib (bench/install-peers.sh); without it its column is NA.
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
has_monotone <- suppressWarnings(requireNamespace("monotone", lib.loc = "bench/.lib",
                                                  quietly = TRUE))
quick <- getFromNamespace("ffi_isotonic_quick", "gpuiso")
y <- c(1, 0.5)
w <- c(2, 3)
# closures in the package's namespace, byte-compiled as the package's own are
in_ns <- function(f) {
  environment(f) <- asNamespace("gpuiso")
  compiler::cmpfun(f)
}
variants <- list(
  # isotonic() as installed
  isotonic = gpuiso::isotonic,
  # the bare call of its quick path, no closure
  dotcall = NULL,
  # three formals, constants for the rest
  three_formals = in_ns(function(y, weights = NULL, device = "cpu") {
    .Call(quick, y, weights, FALSE, "double", FALSE, device, FALSE, NULL, NULL, NULL)
  }),
  # isotonic()'s ten formals, constants for what the call does not give
  ten_formals = in_ns(function(y, weights = NULL, decreasing = FALSE,
                               device = getOption("gpuiso.device", "auto"), groups = NULL,
                               precision = c("double", "single"), y_min = NULL,
                               y_max = NULL, na.rm = FALSE) {
    .Call(quick, y, weights, FALSE, "double", FALSE, device, FALSE, NULL, NULL, NULL)
  }),
  # ... and the five defaults forced, as isotonic() passes them
  ten_forced = in_ns(function(y, weights = NULL, decreasing = FALSE,
                              device = getOption("gpuiso.device", "auto"), groups = NULL,
                              precision = c("double", "single"), y_min = NULL,
                              y_max = NULL, na.rm = FALSE) {
    .Call(quick, y, weights, decreasing, "double", na.rm, device, FALSE, groups, y_min, y_max)
  })
)
# microseconds per call of variant `name`, over k calls after a warm-up of
# k / 100 whose result is checked
per_call <- function(name, k = 1e6) {
  f <- switch(name,
    dotcall = function(k) {
      for (i in seq_len(k)) {
        last <- .Call(quick, y, w, FALSE, "double", FALSE, "cpu", FALSE, NULL, NULL, NULL)
      }
      last
    },
    monotone = function(k) {
      for (i in seq_len(k)) last <- monotone::monotone(y, w)
      last
    },
    {
      fn <- variants[[name]]
      function(k) {
        for (i in seq_len(k)) last <- fn(y, w, device = "cpu")
        last
      }
    })
  stopifnot(isTRUE(all.equal(f(k / 100), c(0.7, 0.7))))
  system.time(f(k))[["elapsed"]] / k * 1e6
}
names_all <- c(names(variants), "monotone")
cat(paste(names_all, collapse = " | "), "(us per call)\n")
for (r in 1:3) {
  t <- vapply(names_all, function(v) {
    if (v == "monotone" && !has_monotone) NA_real_ else per_call(v)
  }, numeric(1))
  cat(paste(sprintf("%.3f", t), collapse = " | "), "\n")
}
