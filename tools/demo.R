# gpuiso demo: fit isotonic regressions to simulated data, print them and
# plot one to a PNG file.
#
#   Rscript tools/demo.R [file.png]     (default: demo.png)

suppressPackageStartupMessages(library(gpuiso))  # it masks stats::isoreg

args <- commandArgs(trailingOnly = TRUE)
png_file <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else "demo.png"

set.seed(2026)

cat("== What this installation can do\n")
print(gpu_info())

# A noisy monotone signal: dose and response.
n <- 80
dose <- sort(runif(n, 0, 10))
response <- 2 * plogis(dose - 5) + rnorm(n, sd = 0.3)
w <- sample(1:3, n, replace = TRUE)

cat("\n== isoreg(dose, response, weights = w)\n")
fit <- isoreg(dose, response, weights = w)
print(fit)

cat("\n== summary(fit)\n")
print(summary(fit))

cat("\n== predict() between and beyond the data\n")
at <- c(-1, 2.5, 5, 7.5, 11)
print(data.frame(
  x = at,
  constant = predict(fit, at),
  linear = predict(fit, at, interpolation = "linear"),
  linear_na = predict(fit, at, interpolation = "linear", out_of_bounds = "na")
))

cat("\n== isotonic() on a matrix: one problem per column, one call\n")
m <- sapply(1:4, function(j) seq(0, 2, length.out = 6) + rnorm(6, sd = 0.6))
colnames(m) <- paste0("series", 1:4)
print(round(isotonic(m), 3))

cat("\n== isotonic(decreasing = TRUE) and its gradient\n")
y <- c(5, 3, 4, 1, 2)
print(isotonic(y, decreasing = TRUE))
# d fit[2] / d y: elements 2 and 3 share a block, so each gets half
print(isotonic_vjp(y, grad = c(0, 1, 0, 0, 0), decreasing = TRUE))

# The plot: data, fitted steps, and the cumulative sum diagram.
type <- if (isTRUE(capabilities("cairo"))) "cairo" else getOption("bitmapType")
png(png_file, width = 1200, height = 560, res = 110, type = type)
plot(fit, plot.type = "row.wise", main = "isoreg(dose, response, weights = w)",
     xlab = "dose", ylab = "response")
invisible(dev.off())

cat("\nPlot written to", normalizePath(png_file), "\n")
