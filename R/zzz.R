.onLoad <- function(libname, pkgname) {
  defaults <- list(gpuiso.device = "auto", gpuiso.threads = 2L)
  unset <- !names(defaults) %in% names(options())
  if (any(unset)) options(defaults[unset])
  invisible()
}
