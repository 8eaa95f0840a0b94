#' gpuiso: fast isotonic regression on the CPU and the GPU
#'
#' Weighted least-squares isotonic regression: the non-decreasing (or
#' non-increasing) sequence closest to the data. The entry points are
#' [isotonic()], the operator on vectors, matrices of problems and ragged
#' batches; [isoreg()], the model fit with methods for printing, plotting
#' and prediction; and [isotonic_vjp()], its gradient. [gpu_info()] tells
#' whether the GPU engine can be used here.
#'
#' @section Options:
#' * `gpuiso.threads`: how many threads the CPU engine may use for a batch
#'   of problems (default 2, further capped by the processors and by
#'   `OMP_THREAD_LIMIT`). A single problem runs on one thread; [isoreg()]
#'   also uses them to sort runs of tied `x` and to find its knots beside
#'   the fit.
#' * `gpuiso.device`: the default of every `device` argument (`"auto"`).
#' * `gpuiso.gpu_min_n`: the fewest elements in one call for which
#'   `device = "auto"` takes the GPU, when there is one (default
#'   `r format(gpu_min_n_default, scientific = FALSE)`). `Inf` keeps
#'   `"auto"` on the CPU.
#' * `gpuiso.idr_gpu_min_n`: the fewest observations for which [idr()] with
#'   `device = "auto"` fits on the GPU, when there is one (default
#'   `r format(idr_gpu_min_n_default, scientific = FALSE)`).
#'
#' @keywords internal
#' @useDynLib gpuiso, .registration = TRUE
#' @importFrom stats fitted residuals nobs predict as.stepfun knots coef logLik
#'   deviance
#' @importFrom graphics lines plot
"_PACKAGE"
