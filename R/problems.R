# How values are laid out as a batch of problems for the engine: offsets
# o[1] = 0 <= ... <= o[B + 1] = length(y), problem b covering (o[b], o[b+1]].
# A vector is one problem, a matrix one problem per column, and `groups` one
# problem per distinct label (gathered in order of first appearance when the
# labels are not contiguous, and scattered back afterwards).

layout_problems <- function(y, weights, groups, call, single = FALSE) {
  y <- check_values(y, "y", call, single = single)
  w <- check_weights(weights, y, call, single = single)
  n <- length(y)
  perm <- NULL
  if (!is.null(groups)) {
    if (is.matrix(y)) {
      abort_input("`groups` can only be used with a vector `y`, not a matrix.",
                  call)
    }
    g <- check_groups(groups, n, call)
    if (!g$contiguous) {
      perm <- g$order
      y <- y[perm]
      if (!is.null(w)) w <- w[perm]
    }
    offsets <- g$offsets
    labels <- function(b) sprintf("group %s", encodeString(g$labels[b], quote = "\""))
  } else if (is.matrix(y)) {
    offsets <- seq.int(0, by = nrow(y), length.out = ncol(y) + 1L)
    labels <- function(b) sprintf("column %.0f", b)
  } else {
    offsets <- c(0, n)
    labels <- function(b) NULL
  }
  offsets <- as.double(offsets)
  check_weights_positive(w, offsets, labels, call)
  list(y = y, w = w, offsets = offsets, perm = perm)
}

check_groups <- function(groups, n, call) {
  g <- check_label_vector(groups, n, "y", "element of `y`", call)
  if (n == 0L) {
    return(list(contiguous = TRUE, offsets = 0, labels = character()))
  }
  first <- c(TRUE, g[-1L] != g[-n])
  labels <- g[first]
  if (!anyDuplicated(labels)) {
    return(list(contiguous = TRUE, offsets = c(which(first) - 1, n),
                labels = as.character(labels)))
  }
  code <- match(g, unique(g))
  sizes <- tabulate(code)
  list(contiguous = FALSE, order = order(code, method = "radix"),
       offsets = c(0, cumsum(as.double(sizes))),
       labels = as.character(unique(g)))
}

# Engine output back in the shape and order of the user's `y`.
restore_shape <- function(v, layout, y) {
  if (!is.null(layout$perm)) v[layout$perm] <- v
  d <- dim(y)
  if (!is.null(d)) {
    dim(v) <- d
    dimnames(v) <- dimnames(y)
  } else {
    names(v) <- names(y)
  }
  v
}

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
