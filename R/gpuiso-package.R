#' gpuiso: fast isotonic regression on the CPU and the GPU
#'
#' Weighted least-squares isotonic regression: the non-decreasing (or
#' non-increasing) sequence closest to the data. The entry points are
#' [isotonic()], the operator on vectors, matrices of problems and ragged
#' batches; [isoreg()], the model fit with methods for printing, plotting
#' and prediction; and [isotonic_vjp()], its gradient.
#'
#' @section Options:
#' * `gpuiso.threads`: how many threads the CPU engine may use for a batch
#'   of problems (default 2, further capped by the processors and by
#'   `OMP_THREAD_LIMIT`). A single problem always runs on one thread.
#' * `gpuiso.device`: the default of every `device` argument (`"auto"`).
#'
#' @keywords internal
#' @useDynLib gpuiso, .registration = TRUE
#' @importFrom stats fitted residuals nobs predict as.stepfun
#' @importFrom graphics lines plot
"_PACKAGE"
