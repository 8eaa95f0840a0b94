# The cost of exactness over the whole range of doubles: isotonic() on
# n = 1e6 noisy values with weights inside the fast pass's window
# [2^-200, 2^200], spanning 2^250 (solved again, scaled by powers of two)
# and spanning 2^2000 (the wide-exponent pass of core/wide.c), and
# isotonic_vjp() on the same. One process, CPU engine, one thread.
#   Rscript bench/range.R [LIB] [OUT.csv]
args <- commandArgs(TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
out <- if (length(args) >= 2L) args[2L] else ""
suppressMessages(library(gpuiso, lib.loc = lib))
options(gpuiso.threads = 1L)
set.seed(1)
n <- 1e6
y <- rnorm(n) + seq(0, 3, length.out = n)
w <- runif(n, 0.5, 2)
cases <- list(
  window = w,
  scaled = w * 2^sample(c(-250, 0), n, TRUE),
  wide = w * 2^sample(c(-1000, 0, 1000), n, TRUE)
)
best <- function(f, reps = 5L) {
  f()
  min(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], 0))
}
res <- do.call(rbind, lapply(names(cases), function(k) {
  wk <- cases[[k]]
  data.frame(weights = k, n = n,
             isotonic_s = best(function() isotonic(y, weights = wk, device = "cpu")),
             vjp_s = best(function() isotonic_vjp(y, grad = y, weights = wk, device = "cpu")))
}))
res$isotonic_ratio <- round(res$isotonic_s / res$isotonic_s[1L], 2)
res$vjp_ratio <- round(res$vjp_s / res$vjp_s[1L], 2)
print(res, row.names = FALSE)
if (nzchar(out)) utils::write.csv(res, out, row.names = FALSE)
