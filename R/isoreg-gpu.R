# The GPU pipeline of isoreg(): the sort by (x, -y), the pooling of tied x
# and the fit on the device. NULL when the CPU must do it instead.
gpu_isoreg <- function(x, y, w, is_ord, decreasing, single, call) {
  NULL
}
