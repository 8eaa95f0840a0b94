# GPU against CPU engine over families, sizes, weightings, directions,
# precisions, ragged batches and zero weights, through the .Call entries;
# then kernel times with a split by stage. Run by tools/gpu-check.sh.
library(gpuiso)
ns <- asNamespace("gpuiso")
gfit <- function(y, w = NULL, off = c(0, length(y)), dec = FALSE, single = FALSE, starts = TRUE)
  .Call(ns$ffi_gpu_fit, y, w, as.double(off), dec, starts, single, 8L)
cfit <- function(y, w = NULL, off = c(0, length(y)), dec = FALSE, starts = TRUE)
  .Call(ns$ffi_isotonic_fit, y, w, as.double(off), dec, starts, 2L)
s1 <- function(x) .Call(ns$ffi_as_single, x)
gen <- function(family, n) {
  t <- (seq_len(n) - 1) / max(1L, n - 1L)
  switch(family,
    increasing = cumsum(runif(n, 0.5, 1.5)) / n,
    decreasing = rev(cumsum(runif(n, 0.5, 1.5)) / n),
    constant = rep(runif(1, -2, 2), n),
    piecewise = { k <- max(1L, n %/% 1000L) + 4L; lv <- cumsum(rnorm(k)); lv[pmin(k, floor(t * k) + 1L)] + rnorm(n, sd = 0.25) },
    gaussian = rnorm(n), randomwalk = cumsum(rnorm(n)),
    sawtooth = ((seq_len(n) - 1L) %% 100L) / 100 + rnorm(n, sd = 0.01),
    cliff = if (n) c(cumsum(runif(n - 1L, 0.5, 1.5)) / n, -1e4 * n) else numeric(0),
    collinear = 1 + 1e-12 * (2 * t + rnorm(n)),
    offset = 1e6 + 3 * t + rnorm(n))
}
fams <- c("increasing","decreasing","constant","piecewise","gaussian","randomwalk","sawtooth","cliff","collinear","offset")
wgen <- function(kind, n) switch(kind, none = NULL, unif = runif(n, 0.1, 1.1), exp = exp(runif(n, 0, 8)))
nblk <- function(z, off) { s <- 0; for (b in seq_len(length(off) - 1)) { i <- (off[b] + 1):off[b + 1]; if (off[b+1] > off[b]) s <- s + 1 + sum(diff(z[i]) != 0) }; s }
mono <- function(z, off, dec) { for (b in seq_len(length(off) - 1)) { if (off[b+1] - off[b] < 2) next; d <- diff(z[(off[b] + 1):off[b + 1]]); if (if (dec) any(d > 0) else any(d < 0)) return(FALSE) }; TRUE }
bad <- 0
check <- function(label, y, w, off, dec, single) {
  g <- tryCatch(gfit(y, w, off, dec, single), error = function(e) list(error = conditionMessage(e)))
  if (!is.null(g$error)) { cat("ERROR", label, g$error, "\n"); bad <<- bad + 1; return(invisible()) }
  if (single) { y <- s1(y); if (!is.null(w)) w <- s1(w) }
  cc <- cfit(y, w, off, dec)
  zc <- cc[[1]]; if (single) zc <- s1(zc)
  dev <- max(c(0, abs(g$fit - zc) / (1 + abs(zc))))
  tol <- if (single) 2e-7 else 1e-10
  nb_g <- nblk(g$fit, off); nb_c <- nblk(zc, off)
  st_ok <- identical(g$starts, cc[[2]])
  ok <- is.finite(dev) && dev <= tol && (single || nb_g == nb_c) && mono(g$fit, off, dec)
  if (!ok || !st_ok) {
    bad <<- bad + 1
    cat(sprintf("FAIL %-40s dev=%.3g blocks gpu=%d cpu=%d mono=%s starts=%s\n", label, dev, nb_g, nb_c, mono(g$fit, off, dec), st_ok))
  }
  invisible(dev)
}
set.seed(1)
t0 <- proc.time()[[3]]
# small uniform batches
for (n in c(1, 2, 3, 5, 31, 32, 33, 64, 100, 513, 1000, 1024)) for (f in c("gaussian", "increasing", "constant", "cliff", "sawtooth")) {
  B <- 50; y <- unlist(lapply(1:B, function(i) gen(f, n))); off <- seq(0, by = n, length.out = B + 1)
  for (wk in c("none", "exp")) check(sprintf("uni n=%d %s %s", n, f, wk), y, wgen(wk, length(y)), off, FALSE, FALSE)
}
cat("small uniform done", proc.time()[[3]] - t0, "\n")
# long single problems, all families and weightings
for (n in c(1025, 2049, 5000, 1e5)) for (f in fams) for (wk in c("none", "unif", "exp")) for (dec in c(FALSE, TRUE)) for (sg in c(FALSE, TRUE)) {
  y <- gen(f, n); check(sprintf("n=%g %s %s dec=%d sgl=%d", n, f, wk, dec, sg), y, wgen(wk, n), c(0, n), dec, sg)
}
cat("long done", proc.time()[[3]] - t0, "\n")
# ragged
for (rep in 1:5) {
  sizes <- sample(c(0, 1, 2, 31, 32, 33, 512, 1000, 1024, 1025, 3000, 5000, 70000), 40, replace = TRUE)
  off <- c(0, cumsum(sizes)); y <- unlist(lapply(sizes, function(n) gen(sample(fams, 1), n)))
  for (wk in c("none", "exp")) check(sprintf("ragged %d %s", rep, wk), y, wgen(wk, length(y)), off, rep %% 2 == 0, FALSE)
}
cat("ragged done", proc.time()[[3]] - t0, "\n")
# zero weights
y <- rnorm(5000); w <- runif(5000); w[c(1:3, 100:140, 2000, 4990:5000)] <- 0
check("zero weights", y, w, c(0, 2500, 5000), FALSE, FALSE)
# big
for (f in c("gaussian", "increasing", "cliff", "sawtooth", "collinear")) for (wk in c("none", "exp")) {
  n <- 1e7; y <- gen(f, n); check(sprintf("n=1e7 %s %s", f, wk), y, wgen(wk, n), c(0, n), FALSE, FALSE)
}
cat("big done", proc.time()[[3]] - t0, "\n")
# vjp
y <- rnorm(1e5); w <- runif(1e5) + 0.1; gr <- rnorm(1e5); off <- c(0, 3e4, 1e5)
fw <- cfit(y, w, off)
gv <- .Call(ns$ffi_gpu_vjp, y, w, fw[[1]], fw[[2]], gr, off, TRUE, FALSE, 8L)
cv <- .Call(ns$ffi_isotonic_vjp, y, w, fw[[1]], fw[[2]], gr, off, TRUE, 2L)
cat("vjp err", gv$error, "dy", max(abs(gv$y - cv[[1]]) / (1 + abs(cv[[1]]))), "dw", max(abs(gv$weights - cv[[2]]) / (1 + abs(cv[[2]]))), "\n")
cat("FAILURES:", bad, "\n")
# timings
tm <- function(label, y, off, single) { r <- .Call(ns$ffi_gpu_bench, y, NULL, as.double(off), TRUE, single, 10L); cat(sprintf("%-28s %s median %.3f ms  stages %s\n", label, if (single) "f32" else "f64", if (is.null(r$error)) median(r$ms) else NA, paste(sprintf("%.3f", r$stages), collapse = " "))); if (!is.null(r$error)) cat(r$error, "\n") }
for (sg in c(TRUE, FALSE)) {
  tm("100 x 1e3", rnorm(1e5), seq(0, by = 1e3, length.out = 101), sg)
  tm("1e6 x 16", rnorm(16e6), seq(0, by = 16, length.out = 1e6 + 1), sg)
  tm("1e4 x 1e3", rnorm(1e7), seq(0, by = 1e3, length.out = 1e4 + 1), sg)
  tm("1e3 x 1e4", rnorm(1e7), seq(0, by = 1e4, length.out = 1e3 + 1), sg)
  tm("1 x 1e6", 3 * (1:1e6) / 1e6 + rnorm(1e6), c(0, 1e6), sg)
  tm("1 x 1e7", 3 * (1:1e7) / 1e7 + rnorm(1e7), c(0, 1e7), sg)
  tm("1 x 1e7 incr", -(1:1e7) / 1e7, c(0, 1e7), sg)
  tm("1 x 1e8", 3 * (1:1e8) / 1e8 + rnorm(1e8), c(0, 1e8), sg)
}
r <- .Call(ns$ffi_gpu_memory); cat("workspace", r$workspace / 1e9, "GB free", r$free / 1e9, "\n")
