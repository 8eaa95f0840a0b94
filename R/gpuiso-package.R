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
#'   of problems, and the GPU engine for its copies between R's memory and
#'   the device. The default, set when the package loads, is the environment
#'   variable `GPUISO_THREADS` when set, else half the processors (at least
#'   1), and at most 2 under `R CMD check` (which sets
#'   `_R_CHECK_LIMIT_CORES_`); `OMP_THREAD_LIMIT` and `OMP_NUM_THREADS` cap
#'   it further. Short problems of a batch go to a thread each; a problem
#'   of \eqn{2^{16}} elements or more is cut into pieces of about
#'   \eqn{2^{15}} that all the threads share. The pieces depend on the
#'   problem's length alone, so the fit is the same to the bit on any
#'   number of threads. [isoreg()] also uses them to sort runs of tied `x`
#'   and to find its knots beside the fit. Unset (`NULL`), it is that
#'   default again. A value that is not a positive whole number is an error
#'   of the call that reads it. [isotonic()] on one plain double vector of
#'   fewer than \eqn{2^{16}} elements (no names or other attributes, no
#'   `groups`, bounds or `"auto"` direction, no missing values to remove)
#'   runs on one thread without reading it; every other call reads it,
#'   including those on integer or named vectors and [gpu_info()].
#' * `gpuiso.device`: the default of every `device` argument (`"auto"`).
#' * `gpuiso.gpu_min_n`: the fewest elements in one call for which
#'   `device = "auto"` takes the GPU, when there is one (default
#'   `r format(gpu_min_n_default, scientific = FALSE)` for [isotonic()]
#'   and [isotonic_vjp()], and
#'   `r format(gpu_sort_min_n_default, scientific = FALSE)` for [isoreg()],
#'   [iso_calibrate()] and [reliability_diagram()], which sort on the
#'   device). `Inf` keeps `"auto"` on the CPU. Above it, `"auto"` also
#'   keeps a batch on the CPU where its threads are expected to be faster
#'   (see [gpu_info()]).
#' * `gpuiso.band_gpu_min_draws`: the fewest draws in all (forecasts times
#'   resamples) for which the band of [reliability_diagram()] with
#'   `device = "auto"` is resampled on the GPU, when there is one (default
#'   `r format(band_gpu_min_draws, scientific = FALSE)`).
#' * `gpuiso.idr_gpu_min_n`: the fewest observations for which [idr()] with
#'   `device = "auto"` fits on the GPU, when there is one (default
#'   `r format(idr_gpu_min_n_default, scientific = FALSE)`).
#' * `gpuiso.idr_po_gpu_min_n`: the same for [idr()] on two covariates, in
#'   all levels of `by` together, where none has more than
#'   `r format(idr_po_gpu_max_n, scientific = FALSE)` observations (default
#'   `r format(idr_po_gpu_min_n_default, scientific = FALSE)`).
#'
#' @section Errors and interrupts:
#' Every error that gpuiso raises, from R or from its C and CUDA engines, is
#' a condition of class `"gpuiso_error"` and of one of
#' * `"gpuiso_error_input"`: an argument that cannot be used;
#' * `"gpuiso_error_overflow"`: a true result beyond the range of doubles;
#' * `"gpuiso_error_memory"`: memory ran out;
#' * `"gpuiso_error_device"`: the GPU engine failed or cannot be used (the
#'   message says why, and how to solve on the CPU instead);
#' * `"gpuiso_error_internal"`: a bug of gpuiso, to be reported.
#'
#' Its fields `arg` and `position` name the argument at fault and the
#' 1-based element (or, for a failure of one problem of a batch, the
#' problem) where there is one, else `NULL` and `NA`; its call is that of
#' the gpuiso function called. So
#' `tryCatch(isotonic(y), gpuiso_error_input = function(e) e$position)`
#' finds the first bad value.
#'
#' Long computations (fits on the CPU, [idr()] on either engine between the
#' pieces of its sweep) look for a user interrupt (Ctrl-C, Esc) as they go,
#' free what they hold and pass it on as R's own `"interrupt"` condition: without a
#' handler R returns to the prompt as after any interrupt, and
#' `tryCatch(..., interrupt = )` catches it. The next call starts afresh.
#'
#' @keywords internal
#' @useDynLib gpuiso, .registration = TRUE
#' @importFrom stats fitted residuals nobs predict as.stepfun knots coef logLik
#'   deviance
#' @importFrom graphics lines plot
"_PACKAGE"
