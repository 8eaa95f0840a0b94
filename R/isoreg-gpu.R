# The GPU pipeline of isoreg(): the sort by (x, -y) and the fit on the
# device, stats' running sums and knots on the host. The engine's result
# for on_device(), with status "range" beyond the points one device sort
# takes; NULL where the CPU must fit instead: float32 fits, and zero
# weights (the pooled refit they need is the CPU's).
gpu_isoreg <- function(x, y, w, decreasing, single) {
  if (single || !is.null(w) && any(w == 0)) return(NULL)
  .Call(ffi_gpu_isoreg, x, y, w, decreasing, resolve_threads())
}
