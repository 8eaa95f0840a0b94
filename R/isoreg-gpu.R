# The GPU pipeline of isoreg(): the sort by (x, -y) and the fit on the
# device, stats' running sums and knots on the host. NULL when the CPU must
# do it instead: float32 fits, zero weights (the pooled refit they need is
# the CPU's), or more points than one device sort takes.
gpu_isoreg <- function(x, y, w, decreasing, single) {
  if (single || !is.null(w) && any(w == 0)) return(NULL)
  res <- .Call(ffi_gpu_isoreg, x, y, w, decreasing, resolve_threads())
  # a failure of the engine is raised in C; "range": the CPU fits instead
  if (identical(res$status, "range")) return(NULL)
  res$device <- "gpu"
  res
}
