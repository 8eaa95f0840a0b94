# The .Call dispatch of the isotonic fits and their gradients: the CPU
# engine (src/api_isotonic.c) or the GPU engine (src/api_gpu.c), which hands
# a batch back to the CPU where its sums would leave the double range.

# The .Call boundary of the engines. `device` is a resolved one ("cpu" or
# "gpu"). With precision "single" the inputs are rounded to float32 here and
# the results too, whichever engine runs, so both solve the same problem.
# Returns list(fit, starts, device), `device` the engine that solved it: the
# GPU hands over to the CPU when its sums would leave the double range.
engine_fit <- function(y, w, offsets, decreasing, starts = FALSE,
                       device = "cpu", precision = "double") {
  single <- identical(precision, "single")
  # the GPU engine rounds to float32 itself, as it moves the data, and
  # returns float32 values: no pass over the data here
  res <- if (identical(device, "gpu")) {
    gpu_fit(y, w, offsets, decreasing, starts, single)
  }
  if (is.null(res)) {
    device <- "cpu"
    if (single) {
      y <- as_single(y)
      w <- as_single(w)
    }
    res <- .Call(ffi_isotonic_fit, y, w, offsets, decreasing, starts,
                 resolve_threads())
    if (single) res[[1L]] <- as_single(res[[1L]])
  }
  list(fit = res[[1L]], starts = res[[2L]], device = device)
}

# The GPU's forward pass, or NULL when the CPU must solve it instead.
gpu_fit <- function(y, w, offsets, decreasing, starts, single) {
  res <- .Call(ffi_gpu_fit, y, w, offsets, decreasing, starts, single,
               resolve_threads())
  # a failure of the engine is raised in C; "range": the CPU solves instead
  if (identical(res$status, "range")) NULL else res
}

# The backward pass with the fit and block starts of engine_fit() (for
# "single", a fit already rounded to float32).
engine_vjp <- function(y, w, fit, starts, grad, offsets, want_dw = TRUE,
                       device = "cpu", precision = "double") {
  single <- identical(precision, "single")
  if (single) {
    y <- as_single(y)
    w <- as_single(w)
    grad <- as_single(grad)
  }
  res <- if (identical(device, "gpu")) {
    gpu_vjp(y, w, fit, starts, grad, offsets, want_dw, single)
  } else {
    .Call(ffi_isotonic_vjp, y, w, fit, starts, grad, offsets, want_dw,
          resolve_threads())
  }
  dy <- res[[1L]]
  dw <- res[[2L]]
  if (single) {
    dy <- as_single(dy)
    dw <- as_single(dw)
  }
  list(y = dy, weights = dw)
}

gpu_vjp <- function(y, w, fit, starts, grad, offsets, want_dw, single) {
  .Call(ffi_gpu_vjp, y, w, fit, starts, grad, offsets, want_dw, single,
        resolve_threads())
}
