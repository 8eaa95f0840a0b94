# Where the time of one large isotonic() call from R goes, beyond the
# engine's own stages: the argument scan, the bare .Call, R's garbage
# collection of the previous result. For the device machine:
#   Rscript bench/gpu/profile.R LIB [N]
args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1L && nzchar(args[1])) .libPaths(c(args[1], .libPaths()))
n <- if (length(args) >= 2L) as.numeric(args[2]) else 1e8
suppressPackageStartupMessages(library(gpuiso))
set.seed(1)
y <- rnorm(n) + seq(0, 3, length.out = n)
ms <- function(expr) {
  t0 <- Sys.time()
  force(expr)
  1e3 * as.numeric(Sys.time() - t0, units = "secs")
}
eng <- function() {
  t <- gpu_timings()
  sprintf("engine %.1f = in %.1f + device %.1f + prefault %.1f + out %.1f", t$total,
          t$copy_in, t$device, t$prefault, t$copy_out)
}
for (th in c(8L, 16L)) {
  options(gpuiso.threads = th)
  for (i in 1:3) {
    a <- ms(.Call(gpuiso:::ffi_first_invalid, y, FALSE, FALSE, th))
    b <- ms(r <- .Call(gpuiso:::ffi_gpu_fit, y, NULL, c(0, n), FALSE, FALSE, FALSE, th))
    eb <- eng()
    rm(r)
    g <- ms(gc())
    c <- ms(z <- isotonic(y, device = "gpu"))
    ec <- eng()
    d <- ms(z <- isotonic(y, device = "gpu", precision = "single"))
    ed <- eng()
    rm(z)
    cat(sprintf("threads %2d: scan %.1f | .Call %.1f (%s) | gc %.1f\n", th, a, b, eb, g))
    cat(sprintf("            isotonic double %.1f (%s)\n", c, ec))
    cat(sprintf("            isotonic single %.1f (%s)\n", d, ed))
  }
}
