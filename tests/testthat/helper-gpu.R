# Helpers for the GPU tests.

# Whether the GPU engine can run here: GPU-specific tests skip unless it can.
gpu_available <- function() isTRUE(gpuiso::gpu_info()$available)

# Doubles rounded to float32 and back by R itself (writeBin's C cast), not
# by gpuiso: the independent oracle of precision = "single".
f32 <- function(x) {
  if (is.null(x)) return(NULL)
  readBin(writeBin(as.double(x), raw(), size = 4L), "double",
          n = length(x), size = 4L)
}

# Bytes of device memory in use (all processes), from the engine's query.
gpu_used_bytes <- function() {
  m <- gpuiso:::gpu_memory()
  m$total - m$free
}

# The engine's test hook: the device looks full to its workspace (TRUE) or
# no longer (FALSE), so that the out-of-memory path can be followed without
# filling an H200.
full_device <- function(on) {
  invisible(.Call(gpuiso:::ffi_gpu_test_full_device, on))
}
