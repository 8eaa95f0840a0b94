.onLoad <- function(libname, pkgname) {
  defaults <- list(gpuiso.device = "auto", gpuiso.threads = default_threads())
  unset <- !names(defaults) %in% names(options())
  if (any(unset)) options(defaults[unset])
  invisible()
}
