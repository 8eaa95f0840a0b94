# The exact differential test of tests/testthat/test-exact.R on new seeds:
# its runners (helper-exact.R) on one set of random problems per seed, the
# engine from GPUISO_EXACT_DEVICE ("cpu" or "gpu"). The test's own seeds
# are fixed; this looks further. Run from tests/testthat with the package
# and gmp installed, one process per seed K (seeds 70000 + 10 K + 1..6):
#     Rscript ../../tools/exact-seeds.R K [SCALE]
# SCALE 1 is 26,500 problems (28 s on one core of the 2-core VM with
# the CPU engine). Prints one line per function and its worst problems as
# reproducible calls; exits with status 1 if any problem is wrong.
suppressMessages({
  library(testthat)
  library(gpuiso)
})
for (h in c("setup.R", list.files(pattern = "^helper-"))) source(h)
args <- commandArgs(TRUE)
k <- as.integer(args[1L])
scale <- if (length(args) > 1L) as.numeric(args[2L]) else 1
if (is.na(k) || !is.finite(scale) || scale <= 0) stop("usage: exact-seeds.R K [SCALE]")
n <- round(scale * c(isotonic = 6000, vjp = 6000, isoreg = 3000, calibrate = 3000,
                     reliability = 1000, idr = 1500))
base <- 70000L + 10L * k
t0 <- proc.time()[["elapsed"]]
runs <- list(
  function() exact_run_isotonic(n[["isotonic"]], seed = base + 1L, batch = n[["isotonic"]] %/% 2),
  function() exact_run_vjp(n[["vjp"]], seed = base + 2L),
  function() exact_run_isoreg(n[["isoreg"]], seed = base + 3L),
  function() exact_run_calibrate(n[["calibrate"]], seed = base + 4L),
  function() exact_run_reliability(n[["reliability"]], seed = base + 5L),
  function() exact_run_idr(n[["idr"]], seed = base + 6L))
wrong <- 0L
for (run in runs) {
  d <- run()
  for (f in unique(d$fun)) {
    df <- d[d$fun == f, ]
    bad <- .bad_outcome(df$outcome)
    wrong <- wrong + sum(bad)
    cat(sprintf("seed set %d %s\n", k, exact_summary(df)))
    if (any(bad)) cat(exact_smallest_wrong(df, 5L), sep = "\n")
  }
}
cat(sprintf("seed set %d: %d wrong, %.0f s\n", k, wrong, proc.time()[["elapsed"]] - t0))
quit(status = if (wrong > 0L) 1L else 0L)
