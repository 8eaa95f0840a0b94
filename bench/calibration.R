# Calibration benchmark: gpuiso::iso_calibrate() end to end from R, against a
# stats::isoreg-based calibration, reliabilitydiag and scikit-learn.
#
# Usage (from the repository root, gpuiso installed):
#     Rscript bench/calibration.R OUT.csv [--lib LIB]
# Environment variables:
#     GPUISO_LIB               library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_QUICK       =1: reduced run (1e5 scores), for smoke tests
#     GPUISO_BENCH_N           number of scores (default 6.5e6, or 1e5 when quick)
#     GPUISO_BENCH_SEGMENTS    number of segments of the per-segment rows (default 280)
#     GPUISO_BENCH_PYTHON      Python interpreter for scikit-learn (default python3; empty: skip)
#     GPUISO_BENCH_PEER_LIMIT_S  skip an R peer cell whose one call is estimated to take longer
#                              (default 60)
#     GPUISO_BENCH_COMMIT      commit label (default: `git rev-parse --short HEAD` of this repo)
#
# The case (section 7.7 of the paper behind the GPU engine): one day of click traffic,
# 6.5 million scores of a miscalibrated model, calibrated by one isotonic curve and by one
# curve per segment (280 segments). Scores are Beta(2, 6) draws rounded to 1e-6 (about 670,000
# distinct values at n = 6.5e6: realistic ties); outcomes are Bernoulli with the log-odds
# 1.4 * logit(score) - 1.2 plus a segment effect (sd 0.5), so the scores are too high and the
# true curve is not the identity. Segments have Zipf-like sizes (share ~ rank^-0.8).
#
# Tasks (rows of the table):
#   fit, one curve        from raw (score, outcome) vectors to the calibration curve: sort,
#                         pool tied scores, isotonic fit.
#   fit, K curves         the same per segment (`groups =`).
#   predict, one curve    the calibrated values at all n scores, from the fitted curve (linear
#                         interpolation between the fitted scores, clipped outside).
#   predict, K curves     the same with each score's segment.
#   reliability diagram   CORP diagram and Brier score decomposition of the raw scores (band
#                         = "none"; bands: bench/reliability-bands.R).
# Implementations (columns):
#   gpuiso 1 thr / gpuiso default: iso_calibrate(), predict(), reliability_diagram() with
#       device = "cpu" and options(gpuiso.threads = 1) or the default thread count.
#   gpuiso GPU: the same with device = "gpu", when gpuiso::gpu_info()$available; host-to-device
#       copies and R's sort and pooling included.
#   stats::isoreg (R): order(score, -outcome) (ties sorted by decreasing outcome, which makes
#       stats::isoreg pool them, as it takes no weights), stats::isoreg() on the sorted
#       outcomes, one value per distinct score; per segment a loop over split() indices;
#       O(n * steps), so large cells are estimated from probes on prefixes of n/1000, n/100,
#       n/10 scores and skipped above the limit. Predict rows: stats::approx(rule = 2) on the
#       curves that gpuiso fitted (per segment a loop over split() indices).
#   reliabilitydiag (R, when installed): reliabilitydiag(X = score, y = outcome,
#       region.level = NA) and summary(); it uses monotone::monotone when that package loads
#       (bench/.lib, see install-peers.sh), stats::isoreg otherwise.
#   scikit-learn (Python, when importable): sklearn.isotonic.IsotonicRegression(
#       out_of_bounds = "clip"), fit() and predict() on the same data, read from a temporary
#       binary file. Only the fit (resp. predict) is timed, inside Python (time.perf_counter);
#       for segments a loop of fits over arrays split beforehand (the split is not timed).
#       OMP_NUM_THREADS=1; scikit-learn's isotonic fit is single-threaded.
# Every cell is the median over repetitions of one call, after a warm-up call (R: each
# repetition loops k calls to last >= 50 ms; at most ~8 s of repetitions per cell). Data
# generation and the agreement checks are not timed. Agreement: the largest absolute
# difference from gpuiso 1 thr of the calibrated values at 1e5 scores drawn from the data
# (reliability diagram: of the recalibrated forecasts, all n).
# Output: a markdown table and notes on stdout, one CSV row per cell in OUT.csv.

suppressPackageStartupMessages({
  library(stats)
  library(utils)
})

## ---------------------------------------------------------------- set-up ----

args <- commandArgs(trailingOnly = TRUE)
lib_arg <- ""
if (length(i <- which(args == "--lib"))) {
  if (i[1L] == length(args)) stop("--lib needs a value")
  lib_arg <- args[i[1L] + 1L]
  args <- args[-c(i[1L], i[1L] + 1L)]
}
if (length(args) < 1L) stop("usage: Rscript bench/calibration.R OUT.csv [--lib LIB]")
out_csv <- args[[1L]]

args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
repo_dir <- dirname(bench_dir)
source(file.path(bench_dir, "common.R"))
QUICK <- identical(Sys.getenv("GPUISO_BENCH_QUICK", ""), "1")
N <- env_num("GPUISO_BENCH_N", if (QUICK) 1e5 else 6.5e6)
K <- as.integer(env_num("GPUISO_BENCH_SEGMENTS", 280))
PEER_LIMIT_S <- env_num("GPUISO_BENCH_PEER_LIMIT_S", 60)
PYTHON <- Sys.getenv("GPUISO_BENCH_PYTHON", "python3")
CELL_BUDGET_S <- 8
MIN_REP_S <- 0.05
REPS <- if (N <= 1e5) 7L else 5L
N_CHECK <- min(N, 1e5)

gpuiso_lib <- if (nzchar(lib_arg)) lib_arg else Sys.getenv("GPUISO_LIB", "")
lib_loc <- if (nzchar(gpuiso_lib)) c(gpuiso_lib, .libPaths()) else NULL
if (!suppressWarnings(requireNamespace("gpuiso", quietly = TRUE, lib.loc = lib_loc))) {
  stop("gpuiso is not installed: run `R CMD INSTALL .` first, or pass --lib / set GPUISO_LIB")
}
if (!exists("iso_calibrate", envir = asNamespace("gpuiso"), inherits = FALSE)) {
  stop("this gpuiso has no iso_calibrate()")
}
gpuiso_version <- as.character(utils::packageVersion("gpuiso", lib.loc = lib_loc))
gi <- tryCatch(gpuiso::gpu_info(), error = function(e) NULL)
has_gpu <- isTRUE(gi$available)
default_threads <- if (is.null(gi)) NA_integer_ else as.integer(gi$threads)
gpu_name <- if (has_gpu && nrow(gi$devices)) gi$devices$name[1L] else NA_character_

# peers
peer_lib <- file.path(bench_dir, ".lib")
if (dir.exists(peer_lib)) .libPaths(c(.libPaths(), peer_lib))   # monotone, for reliabilitydiag
has_reldiag <- suppressWarnings(requireNamespace("reliabilitydiag", quietly = TRUE))
reldiag_pav <- if (suppressWarnings(requireNamespace("monotone", quietly = TRUE))) "monotone::monotone" else "stats::isoreg"

py_ok <- FALSE
py_version <- "not found"
if (nzchar(PYTHON)) {
  v <- tryCatch(suppressWarnings(system2(PYTHON, c("-c", shQuote("import sklearn, numpy; print(sklearn.__version__, numpy.__version__)")),
                                         stdout = TRUE, stderr = TRUE)),
                error = function(e) structure("not found", status = 1L))
  if (is.null(attr(v, "status")) && length(v)) {
    py_ok <- TRUE
    py_version <- tail(v, 1L)
  } else {
    py_version <- paste("not importable:", tail(v, 1L))
  }
}

## ---------------------------------------------------------------- timing ----



# One call at size n, extrapolated from single calls on prefixes of n/1000, n/100, n/10 (at
# least 1000 scores): a power law through the two largest probes, exponent at least 1.
# Stops probing once a probe is itself predicted to exceed the limit.
estimate <- function(run_prefix, n, limit) {
  pts <- data.frame(n = numeric(0), t = numeric(0))
  ladder <- n / 10^(3:1)
  ladder <- ladder[ladder >= 1000]
  extrap <- function(m) {
    if (!nrow(pts)) return(0)
    last <- pts[nrow(pts), ]
    p <- 2
    if (nrow(pts) >= 2L) {
      prev <- pts[nrow(pts) - 1L, ]
      if (prev$t > 1e-3) p <- max(1, log(last$t / prev$t) / log(last$n / prev$n))
    }
    last$t * (m / last$n)^p
  }
  for (m in ladder) {
    if (extrap(m) > limit) break
    t0 <- now(); run_prefix(as.integer(m)); pts <- rbind(pts, data.frame(n = m, t = now() - t0))
  }
  extrap(n)
}

fmt_n <- function(n) {
  if (n >= 1e3 && n == signif(n, 2)) sub("e\\+0?", "e", format(n, scientific = TRUE)) else format(n, big.mark = ",")
}

## ---------------------------------------------------------------- data ----

set.seed(20261129)
seg_share <- (seq_len(K))^-0.8
seg_effect <- rnorm(K, 0, 0.5)
seg <- sample.int(K, N, replace = TRUE, prob = seg_share)
score <- round(rbeta(N, 2, 6), 6)
eta <- 1.4 * qlogis(pmin(pmax(score, 1e-6), 1 - 1e-6)) - 1.2 + seg_effect[seg]
outcome <- as.double(rbinom(N, 1, plogis(eta)))
rm(eta)
chk <- sort(sample.int(N, N_CHECK))
chk_s <- score[chk]
chk_g <- seg[chk]
n_distinct <- length(unique(score))
cat(sprintf("gpuiso calibration benchmark: n = %s scores (%s distinct), %d segments, event rate %.3f%s\n",
            format(N, big.mark = ",", scientific = FALSE), format(n_distinct, big.mark = ","), K, mean(outcome),
            if (QUICK) " [QUICK]" else ""))
cat(sprintf("gpuiso %s; GPU: %s; reliabilitydiag: %s; scikit-learn: %s\n", gpuiso_version,
            if (has_gpu) gpu_name else "not available", if (has_reldiag) paste("yes, PAV by", reldiag_pav) else "not installed",
            py_version))

## ---------------------------------------------------------------- methods ----


gpuiso_fit <- function(device) function(s, y, g) {
  if (is.null(g)) gpuiso::iso_calibrate(s, y, device = device)
  else gpuiso::iso_calibrate(s, y, groups = g, device = device)
}
gpuiso_eval <- function(obj, s, g) {
  # linear, as in the peers' rows (the default of predict() is now the step)
  if (is.null(obj$groups)) predict(obj, s, interpolation = "linear")
  else predict(obj, s, groups = g, interpolation = "linear")
}

# stats::isoreg-based calibration: one curve (sorted distinct scores and values)
isoreg_curve <- function(s, y) {
  o <- order(s, -y, method = "radix")
  ss <- s[o]
  fit <- stats::isoreg(y[o])$yf
  n <- length(ss)
  last <- c(ss[-1L] != ss[-n], TRUE)
  list(score = ss[last], value = fit[last])
}
isoreg_fit <- function(s, y, g) {
  if (is.null(g)) return(list(isoreg_curve(s, y)))
  idx <- split(seq_along(s), g)
  lapply(idx, function(i) isoreg_curve(s[i], y[i]))
}
approx_curve <- function(cv, x) stats::approx(cv$score, cv$value, xout = x, rule = 2, ties = "ordered")$y
isoreg_eval <- function(curves, s, g) {
  if (is.null(g)) return(approx_curve(curves[[1L]], s))
  out <- numeric(length(s))
  idx <- split(seq_along(s), g)
  for (nm in names(idx)) out[idx[[nm]]] <- approx_curve(curves[[nm]], s[idx[[nm]]])
  out
}

gpuiso_cols <- list(
  gpuiso_1t = list(label = "gpuiso 1 thr", device = "cpu", threads = 1L),
  gpuiso_def = list(label = sprintf("gpuiso default (%s thr)", default_threads), device = "cpu",
                    threads = NA_integer_),
  gpuiso_gpu = list(label = "gpuiso GPU", device = "gpu", threads = NA_integer_, gpu = TRUE))
col_ids <- c(names(gpuiso_cols), "isoreg", "reliabilitydiag", "sklearn")
col_labels <- c(vapply(gpuiso_cols, `[[`, "", "label"), isoreg = "stats::isoreg (R)",
                reliabilitydiag = "reliabilitydiag (R)", sklearn = "scikit-learn (Python, timed inside)")

tasks <- list(
  fit1 = list(label = "fit, one curve", grouped = FALSE, kind = "fit"),
  fitK = list(label = sprintf("fit, %d curves", K), grouped = TRUE, kind = "fit"),
  pred1 = list(label = "predict, one curve", grouped = FALSE, kind = "predict"),
  predK = list(label = sprintf("predict, %d curves", K), grouped = TRUE, kind = "predict"),
  rel = list(label = "reliability diagram", grouped = FALSE, kind = "reliability"))

cells <- list()   # cells[[task]][[col]] = list(t, reps, k, diff, note)
put <- function(task, col, t = NA_real_, reps = NA_integer_, k = NA_integer_, diff = NA_real_, note = "") {
  cells[[task]][[col]] <<- list(t = t, reps = reps, k = k, diff = diff, note = note)
  cat(sprintf("  %-22s %-34s %s%s%s\n", tasks[[task]]$label, col_labels[[col]],
              if (is.na(t)) "-" else fmt_t(t), if (!is.na(diff)) sprintf("  (max|diff| %s)", fmt_d(diff)) else "",
              if (nzchar(note)) paste0("  ", note) else ""))
  flush.console()
}
maxdiff <- function(a, b) if (length(a) != length(b)) Inf else max(abs(as.numeric(a) - as.numeric(b)))

t_start <- now()
load_start <- load_now()

## ------------------------------------------------------ gpuiso and stats::isoreg ----

ref_fit <- list()    # gpuiso 1 thr fits (for predict rows and agreement)
ref_chk <- list()    # calibrated values at the check scores, from gpuiso 1 thr
for (tk in c("fit1", "fitK")) {
  g <- if (tasks[[tk]]$grouped) seg else NULL
  gc_chk <- if (tasks[[tk]]$grouped) chk_g else NULL
  for (id in names(gpuiso_cols)) {
    m <- gpuiso_cols[[id]]
    if (isTRUE(m$gpu) && !has_gpu) { put(tk, id, note = "no GPU"); next }
    set_threads(m$threads)
    r <- tryCatch(time_call(function() gpuiso_fit(m$device)(score, outcome, g)), error = function(e) e)
    if (inherits(r, "error")) { put(tk, id, note = paste("error:", conditionMessage(r))); next }
    v <- gpuiso_eval(r$out, chk_s, gc_chk)
    if (id == "gpuiso_1t") { ref_fit[[tk]] <- r$out; ref_chk[[tk]] <- v }
    put(tk, id, r$t, r$reps, r$k, diff = maxdiff(v, ref_chk[[tk]]))
  }
  set_threads(NA)
  # stats::isoreg
  est <- estimate(function(m) isoreg_fit(score[seq_len(m)], outcome[seq_len(m)], if (is.null(g)) NULL else g[seq_len(m)]),
                  N, PEER_LIMIT_S)
  if (est > PEER_LIMIT_S) {
    put(tk, "isoreg", note = sprintf("skipped (est. %.0f s)", est))
  } else {
    r <- time_call(function() isoreg_fit(score, outcome, g), reps = 3L)
    put(tk, "isoreg", r$t, r$reps, r$k, diff = maxdiff(isoreg_eval(r$out, chk_s, gc_chk), ref_chk[[tk]]))
  }
  put(tk, "reliabilitydiag", note = "n/a")
}

## predict at all n scores, from the fits above
for (tk in c("pred1", "predK")) {
  src <- if (tk == "pred1") "fit1" else "fitK"
  g <- if (tasks[[tk]]$grouped) seg else NULL
  obj <- ref_fit[[src]]
  ref_all <- NULL
  for (id in names(gpuiso_cols)) {
    m <- gpuiso_cols[[id]]
    if (id != "gpuiso_1t" || is.null(obj)) {
      put(tk, id, note = if (is.null(obj)) "no fit" else "n/a (R code, as 1 thr)")
      next
    }
    r <- time_call(function() gpuiso_eval(obj, score, g))
    ref_all <- r$out
    put(tk, id, r$t, r$reps, r$k, diff = 0)
  }
  # the peer interpolates the same curves (gpuiso's), so the row does not depend on
  # whether the stats::isoreg fit above ran
  peer <- if (is.null(obj)) NULL else lapply(obj$curves, function(cv) list(score = cv$score, value = cv$value))
  if (is.null(peer)) {
    put(tk, "isoreg", note = "no fit")
  } else {
    r <- time_call(function() isoreg_eval(peer, score, g), reps = 3L)
    put(tk, "isoreg", r$t, r$reps, r$k, diff = if (is.null(ref_all)) NA else maxdiff(r$out, ref_all))
  }
  put(tk, "reliabilitydiag", note = "n/a")
}

## reliability diagram
ref_rel <- NULL
for (id in names(gpuiso_cols)) {
  m <- gpuiso_cols[[id]]
  if (isTRUE(m$gpu) && !has_gpu) { put("rel", id, note = "no GPU"); next }
  set_threads(m$threads)
  r <- tryCatch(time_call(function() gpuiso::reliability_diagram(score, outcome, band = "none", device = m$device)),
                error = function(e) e)
  if (inherits(r, "error")) { put("rel", id, note = paste("error:", conditionMessage(r))); next }
  if (id == "gpuiso_1t") ref_rel <- r$out
  put("rel", id, r$t, r$reps, r$k, diff = maxdiff(r$out$calibrated, ref_rel$calibrated))
}
set_threads(NA)
put("rel", "isoreg", note = "n/a")
if (!has_reldiag) {
  put("rel", "reliabilitydiag", note = "not installed")
} else {
  rd <- function(m) {
    x <- reliabilitydiag::reliabilitydiag(X = score[seq_len(m)], y = outcome[seq_len(m)], region.level = NA)
    list(r = x, s = summary(x))
  }
  est <- if (reldiag_pav == "stats::isoreg") estimate(rd, N, PEER_LIMIT_S) else 0
  if (est > PEER_LIMIT_S) {
    put("rel", "reliabilitydiag", note = sprintf("skipped (est. %.0f s; PAV by stats::isoreg)", est))
  } else {
    r <- tryCatch(time_call(function() rd(N), reps = 3L), error = function(e) e)
    if (inherits(r, "error")) {
      put("rel", "reliabilitydiag", note = paste("error:", conditionMessage(r)))
    } else {
      cs <- r$out$r$X$cases
      cal <- numeric(N); cal[cs$case_id] <- cs$CEP_pav
      d <- if (is.null(ref_rel)) NA else maxdiff(cal, ref_rel$calibrated)
      dm <- if (is.null(ref_rel)) NA else abs(r$out$s$miscalibration[1L] - ref_rel$mcb)
      put("rel", "reliabilitydiag", r$t, r$reps, r$k, diff = d,
          note = sprintf("PAV by %s; |MCB diff| %s", reldiag_pav, fmt_d(dm)))
    }
  }
}
put("rel", "sklearn", note = "n/a")

## ---------------------------------------------------------------- scikit-learn ----

if (!py_ok) {
  for (tk in c("fit1", "fitK", "pred1", "predK")) put(tk, "sklearn", note = py_version)
} else {
  base <- tempfile("calbench")
  writeBin(as.double(score), paste0(base, ".s"), size = 8, endian = "little")
  writeBin(as.double(outcome), paste0(base, ".y"), size = 8, endian = "little")
  writeBin(as.integer(seg), paste0(base, ".g"), size = 4, endian = "little")
  writeBin(as.integer(chk - 1L), paste0(base, ".chk"), size = 4, endian = "little")
  py_file <- file.path(bench_dir, "calibration_sklearn.py")
  old_omp <- Sys.getenv("OMP_NUM_THREADS", NA)
  Sys.setenv(OMP_NUM_THREADS = "1", OPENBLAS_NUM_THREADS = "1", MKL_NUM_THREADS = "1")
  out <- tryCatch(suppressWarnings(system2(PYTHON, c(shQuote(py_file), shQuote(base), REPS),
                                           stdout = TRUE, stderr = TRUE, timeout = 1200)),
                  error = function(e) structure(conditionMessage(e), status = 1L))
  if (is.na(old_omp)) Sys.unsetenv("OMP_NUM_THREADS") else Sys.setenv(OMP_NUM_THREADS = old_omp)
  js <- grep("^\\{", out, value = TRUE)
  if (!is.null(attr(out, "status")) || !length(js)) {
    msg <- paste("error:", paste(tail(out, 3L), collapse = " "))
    for (tk in c("fit1", "fitK", "pred1", "predK")) put(tk, "sklearn", note = msg)
  } else {
    # minimal JSON reader for {"key": [t, reps], ...}
    kv <- regmatches(js, gregexpr('"[a-zA-Z0-9]+": \\[[^]]*\\]', js))[[1L]]
    res <- list()
    for (x in kv) {
      key <- sub('^"([^"]+)".*', "\\1", x)
      v <- as.numeric(strsplit(sub(".*\\[([^]]*)\\].*", "\\1", x), ",")[[1L]])
      res[[key]] <- v
    }
    p1 <- readBin(paste0(base, ".p1"), "double", N_CHECK, size = 8, endian = "little")
    pK <- readBin(paste0(base, ".pK"), "double", N_CHECK, size = 8, endian = "little")
    for (tk in c("fit1", "fitK", "pred1", "predK")) {
      d <- switch(tk, fit1 = maxdiff(p1, ref_chk$fit1), fitK = maxdiff(pK, ref_chk$fitK), NA)
      put(tk, "sklearn", res[[tk]][1L], as.integer(res[[tk]][2L]), 1L, diff = d,
          note = if (tk %in% c("pred1", "predK")) "predict only" else "fit only")
    }
  }
  unlink(paste0(base, c(".s", ".y", ".g", ".chk", ".p1", ".pK", ".py")))
}
t_total <- now() - t_start

## ---------------------------------------------------------------- report ----

csv_field <- function(x) {
  x <- as.character(x)
  if (is.na(x)) return("")
  if (grepl("[\",\n]", x)) paste0("\"", gsub("\"", "\"\"", x, fixed = TRUE), "\"") else x
}
rows_csv <- c("task,n,segments,impl,median_s,reps,k,max_abs_diff,note")
for (tk in names(tasks)) for (id in col_ids) {
  c <- cells[[tk]][[id]]
  if (is.null(c)) next
  rows_csv <- c(rows_csv, paste(vapply(list(
    tasks[[tk]]$label, format(N, scientific = FALSE), if (tasks[[tk]]$grouped) K else 1L, col_labels[[id]],
    if (is.na(c$t)) NA else trimws(formatC(c$t, digits = 6, format = "g")), c$reps, c$k,
    if (is.na(c$diff)) NA else trimws(formatC(c$diff, digits = 3, format = "g")), c$note), csv_field, ""), collapse = ","))
}
dir.create(dirname(out_csv), recursive = TRUE, showWarnings = FALSE)
writeLines(rows_csv, out_csv)

cell_txt <- function(c) {
  if (is.null(c)) return("-")
  if (is.na(c$t)) return(if (nzchar(c$note)) c$note else "-")
  paste0(fmt_t(c$t), if (identical(c$reps, 1L)) " (1 run)" else "")
}
hdr <- c("task", "n", col_labels[col_ids], "max abs diff vs gpuiso 1 thr")
tab <- c(paste("|", paste(hdr, collapse = " | "), "|"),
         paste("|", paste(c("---", "---:", rep("---:", length(col_ids) + 1L)), collapse = " | "), "|"))
for (tk in names(tasks)) {
  ds <- vapply(col_ids, function(id) { c <- cells[[tk]][[id]]; if (is.null(c)) NA_real_ else c$diff }, 0)
  ds <- ds[names(ds) != "gpuiso_1t"]
  dmax <- if (all(is.na(ds))) NA else max(ds, na.rm = TRUE)
  tab <- c(tab, paste("|", paste(c(tasks[[tk]]$label, fmt_n(N), vapply(col_ids, function(id) cell_txt(cells[[tk]][[id]]), ""),
                                   fmt_d(dmax)), collapse = " | "), "|"))
}

target_line <- function(what, cell, limit, needs_n = 6.5e6) {
  if (is.null(cell) || is.na(cell$t)) return(sprintf("- %s <= %s: not measured here", what, fmt_t(limit)))
  if (N < needs_n) return(sprintf("- %s <= %s: not assessed (n = %s, the target is for %s): %s", what, fmt_t(limit),
                                  fmt_n(N), fmt_n(needs_n), fmt_t(cell$t)))
  sprintf("- %s <= %s: %s -> %s", what, fmt_t(limit), fmt_t(cell$t), if (cell$t <= limit) "met" else "NOT met")
}
targets <- c(
  target_line("one curve over 6.5e6 scores on the GPU (an H200), end to end from R incl. the sort",
              cells$fit1$gpuiso_gpu, 0.1),
  target_line("one curve over 6.5e6 scores on one CPU core, end to end from R incl. the sort",
              cells$fit1$gpuiso_1t, 2))

commit <- tryCatch(system2("git", c("-C", shQuote(repo_dir), "rev-parse", "--short", "HEAD"), stdout = TRUE, stderr = FALSE),
                   error = function(e) character(0), warning = function(w) character(0))
if (!length(commit)) commit <- "unknown (no commit)"
if (nzchar(Sys.getenv("GPUISO_BENCH_COMMIT"))) commit <- Sys.getenv("GPUISO_BENCH_COMMIT")

md <- c(
  "# gpuiso calibration benchmark",
  "",
  if (QUICK) c("**QUICK RUN (GPUISO_BENCH_QUICK=1): reduced size, for smoke tests; not for the record.**", ""),
  sprintf("- date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
  sprintf("- machine: %s; %s CPU(s); load average at start / end: %s / %s", lsget("Model name"), lsget("CPU\\(s\\)"),
          load_start, load_now()),
  sprintf("- %s; gpuiso %s, commit %s; default CPU threads %s; GPU: %s", R.version.string, gpuiso_version, commit,
          default_threads, if (has_gpu) gpu_name else "not available"),
  sprintf("- peers: stats::isoreg %s; reliabilitydiag %s; scikit-learn/numpy %s",
          as.character(getRversion()),
          if (has_reldiag) paste(as.character(utils::packageVersion("reliabilitydiag")), "(PAV by", paste0(reldiag_pav, ")")) else "not installed",
          py_version),
  sprintf("- data: n = %s scores, Beta(2, 6) rounded to 1e-6 (%s distinct), event rate %.3f; %d segments (share ~ rank^-0.8, largest %s, smallest %s)",
          format(N, big.mark = ",", scientific = FALSE), format(n_distinct, big.mark = ","), mean(outcome), K,
          format(max(tabulate(seg, K)), big.mark = ","), format(min(tabulate(seg, K)), big.mark = ",")),
  sprintf("- total wall time: %.0f s", t_total),
  "",
  "Median time of one call after a warm-up. R cells are end to end from R: for gpuiso the whole",
  "`iso_calibrate()` (checks, radix sort, pooling of tied scores, the fit, the curves), `predict()` or",
  "`reliability_diagram()`; for stats::isoreg the sort, the fit and the pooling (fit rows), or `approx()`",
  "on gpuiso's curves (predict rows). scikit-learn is timed inside Python, fit() or predict() only (the per-segment split is",
  "not timed). Max abs diff: largest difference from gpuiso 1 thr of the calibrated values at 1e5 scores of",
  "the data (reliability diagram: the recalibrated forecasts).",
  "",
  tab,
  "",
  "## Targets (from the issue)",
  "",
  targets,
  "")
cat("\n", paste(md, collapse = "\n"), "\n", sep = "")
cat(sprintf("\nwrote %s\n", out_csv))
