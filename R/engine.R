# The .Call dispatch of the isotonic fits and their gradients: the CPU
# engine (src/api_isotonic.c) or the GPU engine (src/api_gpu.c), which hands
# a batch back to the CPU where its sums would leave the double range; and
# on_device(), through which every GPU pipeline (the fits here, isoreg(),
# iso_calibrate(), idr()) hands its problems to the CPU.

# The one hand-over from the GPU to the CPU. `gpu` and `cpu` are
# expressions, evaluated lazily: `gpu` only where `device` is "gpu", `cpu`
# only where the GPU did not solve. `gpu` gives the engine's result, with
# its `status`, or NULL where the GPU path declines the problem beforehand
# (data its arithmetic would not take exactly). A failure of the engine is
# raised in C. The status "range" (what the engine cannot solve exactly:
# sums that would leave the double range, more points than it takes) and
# NULL hand the problem to `cpu`, exact over the whole range. Returns the
# result with its `device`: "gpu" where the GPU solved, else the `device`
# that `cpu` recorded (a CPU step before a fit that may itself run on the
# GPU), or "cpu".
on_device <- function(device, gpu, cpu) {
  if (identical(device, "gpu")) {
    res <- gpu
    if (!is.null(res) && !identical(res$status, "range")) {
      res$device <- "gpu"
      return(res)
    }
  }
  res <- cpu
  if (is.null(res$device)) res$device <- "cpu"
  res
}

# The .Call boundary of the engines. `device` is a resolved one ("cpu" or
# "gpu"). With precision "single" the inputs are rounded to float32 here and
# the results too, whichever engine runs, so both solve the same problem.
# Returns list(fit, starts, device), `device` the engine that solved it: the
# GPU hands over to the CPU when its sums would leave the double range.
engine_fit <- function(y, w, offsets, decreasing, starts = FALSE,
                       device = "cpu", precision = "double") {
  single <- identical(precision, "single")
  res <- on_device(device,
    # the GPU engine rounds to float32 itself, as it moves the data, and
    # returns float32 values: no pass over the data here
    gpu = .Call(ffi_gpu_fit, y, w, offsets, decreasing, starts, single,
                resolve_threads()),
    cpu = cpu_fit(y, w, offsets, decreasing, starts, single))
  list(fit = res[[1L]], starts = res[[2L]], device = res$device)
}

# The CPU's forward pass, in float32 for `single`.
cpu_fit <- function(y, w, offsets, decreasing, starts, single) {
  if (single) {
    y <- as_single(y)
    w <- as_single(w)
  }
  res <- .Call(ffi_isotonic_fit, y, w, offsets, decreasing, starts,
               resolve_threads())
  if (single) res[[1L]] <- as_single(res[[1L]])
  res
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
