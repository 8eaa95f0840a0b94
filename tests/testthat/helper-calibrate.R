# Data shared by the tests of iso_calibrate(), its predictions and methods.

calibration_data <- function(n = 600, seed = 21) {
  set.seed(seed)
  d <- data.frame(score = round(runif(n), 2),
                  country = sample(c("DE", "FR", "IT"), n, replace = TRUE),
                  w = runif(n, 0.5, 2))
  d$clicked <- rbinom(n, 1, d$score^2)
  d
}
