# GPU benchmark of gpuiso: the same grid as bench/gpu/peers.py.
#
# Usage (on the GPU machine, from the repository root; see run.sh):
#     Rscript bench/gpu/gpuiso.R --lib LIB --out OUT.csv [--direction decreasing|increasing]
#         [--shapes 100x1e3,1e6x16,...] [--data noisy,increasing] [--precision float32,float64]
#         [--threads 16] [--reps 20] [--budget-s SECONDS] [--seed N] [--no-cpu]
# or positionally: Rscript bench/gpu/gpuiso.R LIB OUT.csv [options]
#
# Three timings per cell (shape rows x n = `rows` problems of length n, data, precision):
#   "gpuiso kernel"  .Call(gpuiso:::ffi_gpu_bench, y, NULL, offsets, decreasing, single, reps):
#                    the batch is copied to the device once, solved once to warm up, then
#                    `reps` times, each timed with a pair of CUDA events (data on the device,
#                    no host<->device copies in the times). y is the data laid out
#                    column-major (each problem contiguous), offsets = 0, n, 2n, ..., rows*n.
#   "gpuiso from R"  wall clock (Sys.time(), microseconds) around
#                    gpuiso::isotonic(m, decreasing = , device = "gpu", precision = ) on the
#                    n x rows matrix m (one problem per column), host<->device copies and
#                    R's allocation of the result included; one warm-up call, then the median
#                    of 3 to 10 calls (a loop of k calls per repetition when a call is < 5 ms).
#   "gpuiso cpu (T threads)"  the same from R with device = "cpu" and
#                    options(gpuiso.threads = T), for the double noisy cells only, as a
#                    reference; skipped where one call is estimated to take > 10 s (the CPU
#                    engine does ~20 ns per element on one thread, parallel over problems).
# Data (same definitions as peers.py, not the same numbers): "noisy" = a ramp from 0 to 3 over
# each problem plus standard normal noise; "increasing" = the ramp alone (seq(0, 3, length.out
# = n)). float32 cells use the same double data; the engine rounds it to single precision.
# Output: a CSV with columns impl, shape, rows, n, data, precision, direction, median_ms,
# q1_ms, q3_ms, reps, note, written row by row (a run killed by a timeout keeps its cells).
# Errors (no GPU, an engine error, no `precision` argument in this gpuiso) go to the note.

## ------------------------------------------------------------------ arguments ----

args <- commandArgs(trailingOnly = TRUE)
opt <- list(lib = "", out = "", direction = "decreasing",
            shapes = "100x1e3,1e6x16,1e4x1e3,1e3x1e4,1x1e6,1x1e7,1x1e8",
            data = "noisy,increasing", precision = "float32,float64",
            threads = "", reps = "20", "budget-s" = "0", seed = "20261129",
            "cpu" = "TRUE", "max-cpu-s" = "10", "check-max" = "1e7")
positional <- character()
i <- 1L
while (i <= length(args)) {
  a <- args[[i]]
  if (a == "--no-cpu") {
    opt$cpu <- "FALSE"
  } else if (startsWith(a, "--")) {
    kv <- strsplit(sub("^--", "", a), "=", fixed = TRUE)[[1L]]
    key <- kv[[1L]]
    if (!key %in% names(opt)) stop("unknown option --", key)
    if (length(kv) > 1L) {
      opt[[key]] <- paste(kv[-1L], collapse = "=")
    } else {
      i <- i + 1L
      if (i > length(args)) stop("option --", key, " needs a value")
      opt[[key]] <- args[[i]]
    }
  } else {
    positional <- c(positional, a)
  }
  i <- i + 1L
}
if (!nzchar(opt$lib) && length(positional) >= 1L) opt$lib <- positional[[1L]]
if (!nzchar(opt$out) && length(positional) >= 2L) opt$out <- positional[[2L]]
if (!nzchar(opt$out)) stop("usage: Rscript gpuiso.R --lib LIB --out OUT.csv [options]")
if (!opt$direction %in% c("decreasing", "increasing"))
  stop("--direction must be decreasing or increasing")

split_opt <- function(x) trimws(strsplit(x, ",", fixed = TRUE)[[1L]])
parse_shapes <- function(spec) {
  lapply(split_opt(spec), function(s) {
    p <- as.numeric(strsplit(tolower(s), "x", fixed = TRUE)[[1L]])
    if (length(p) != 2L || anyNA(p) || any(p < 1) || any(p != round(p)))
      stop("bad shape: ", s)
    p
  })
}
label <- function(x) {
  k <- round(log10(x))
  if (x >= 1000 && 10^k == x) paste0("1e", k) else format(x, scientific = FALSE)
}

shapes <- parse_shapes(opt$shapes)
datas <- split_opt(opt$data)
precs <- split_opt(opt$precision)
decreasing <- opt$direction == "decreasing"
reps <- as.integer(opt$reps)
budget_s <- as.numeric(opt[["budget-s"]])
max_cpu_s <- as.numeric(opt[["max-cpu-s"]])
check_max <- as.numeric(opt[["check-max"]])
do_cpu <- as.logical(opt$cpu)
threads <- if (nzchar(opt$threads)) as.integer(opt$threads) else
  min(16L, max(1L, parallel::detectCores(), na.rm = TRUE))
cpu_impl <- sprintf("gpuiso cpu (%d thread%s)", threads, if (threads == 1L) "" else "s")
t_start <- Sys.time()
elapsed <- function() as.numeric(difftime(Sys.time(), t_start, units = "secs"))

## --------------------------------------------------------------------- output ----

columns <- c("impl", "shape", "rows", "n", "data", "precision", "direction",
             "median_ms", "q1_ms", "q3_ms", "reps", "note")
dir.create(dirname(opt$out), recursive = TRUE, showWarnings = FALSE)
con <- file(opt$out, open = "w")
writeLines(paste(columns, collapse = ","), con)
flush(con)
csv_field <- function(x) {
  x <- as.character(x)
  if (is.na(x)) return("")
  if (grepl("[\",\n]", x)) paste0("\"", gsub("\"", "\"\"", x, fixed = TRUE), "\"") else x
}
one_line <- function(s) {
  s <- gsub("[[:space:]]+", " ", paste(s, collapse = " "))
  if (nchar(s) > 300L) paste0(substr(s, 1L, 297L), "...") else s
}
fmt_num <- function(x) if (is.null(x) || is.na(x)) "" else trimws(formatC(x, digits = 6, format = "g"))
emit <- function(impl, cell, times_ms = NULL, note = "") {
  med <- q1 <- q3 <- NA_real_
  nrep <- ""
  if (length(times_ms)) {
    q <- stats::quantile(times_ms, c(0.25, 0.5, 0.75), names = FALSE, type = 7)
    q1 <- q[[1L]]; med <- q[[2L]]; q3 <- q[[3L]]
    nrep <- length(times_ms)
  }
  note <- one_line(note)
  vals <- c(impl, cell$shape, format(cell$rows, scientific = FALSE),
            format(cell$n, scientific = FALSE), cell$data, cell$precision, opt$direction,
            fmt_num(med), fmt_num(q1), fmt_num(q3), nrep, note)
  writeLines(paste(vapply(vals, csv_field, ""), collapse = ","), con)
  flush(con)
  cat(sprintf("  %-24s %8s %-10s %-7s median %10s ms  reps %3s  %s\n", impl, cell$shape,
              cell$data, cell$precision, if (is.na(med)) "-" else fmt_num(med), nrep, note))
}
emit_all <- function(impl, note) {
  for (s in shapes) for (d in datas) for (p in precs)
    emit(impl, list(shape = paste0(label(s[1]), "x", label(s[2])), rows = s[1], n = s[2],
                    data = d, precision = p), note = note)
}
msg_of <- function(e) one_line(conditionMessage(e))

## --------------------------------------------------------------------- gpuiso ----

impls_all <- c("gpuiso kernel", "gpuiso from R", if (do_cpu) cpu_impl)
lib_paths <- if (nzchar(opt$lib)) opt$lib else NULL
loaded <- tryCatch({
  suppressPackageStartupMessages(library(gpuiso, lib.loc = lib_paths))
  TRUE
}, error = function(e) {
  cat("gpuiso not loadable:", conditionMessage(e), "\n")
  for (impl in impls_all) emit_all(impl, paste("gpuiso not loadable:", msg_of(e)))
  FALSE
})
if (!loaded) {
  close(con)
  quit(status = 0)
}

ns <- asNamespace("gpuiso")
cat("gpuiso", format(utils::packageVersion("gpuiso", lib.loc = lib_paths)), "from",
    find.package("gpuiso", lib.loc = lib_paths), "\n")
cat(R.version.string, "\n")
info <- tryCatch(gpuiso::gpu_info(), error = function(e) NULL)
if (!is.null(info)) print(info)
has_bench <- exists("ffi_gpu_bench", envir = ns, inherits = FALSE)
has_memory <- exists("ffi_gpu_memory", envir = ns, inherits = FALSE)
has_release <- exists("ffi_gpu_release", envir = ns, inherits = FALSE)
has_precision <- "precision" %in% names(formals(gpuiso::isotonic))
cat("ffi_gpu_bench:", has_bench, " isotonic(precision=):", has_precision,
    " threads for the CPU engine:", threads, "\n")
options(gpuiso.threads = threads)

gpu_release <- function() {
  if (has_release) try(.Call(get("ffi_gpu_release", envir = ns)), silent = TRUE)
  invisible()
}
gpu_workspace_mib <- function() {
  if (!has_memory) return(NA_real_)
  m <- tryCatch(.Call(get("ffi_gpu_memory", envir = ns)), error = function(e) NULL)
  if (is.null(m) || !is.null(m$error)) return(NA_real_)
  m$workspace / 2^20
}

# Wall time of one call of f, in ms (microsecond clock).
now <- function() as.numeric(Sys.time())
wall_ms <- function(f, k = 1L) {
  t0 <- now()
  for (j in seq_len(k)) r <- f()
  (now() - t0) * 1e3 / k
}
# Median-style timing from R: warm-up (unless slow), then 3..10 repetitions within ~2 s;
# calls under 5 ms are looped k times per repetition.
time_r <- function(f, warm = TRUE, slow_s = 1, budget_rep_s = 2) {
  t1 <- wall_ms(f)   # warm-up, also the estimate
  if (t1 > slow_s * 1e3 && !warm) {
    # slow: the first call counts; one more
    invisible(gc(FALSE))
    return(c(t1, wall_ms(f)))
  }
  k <- if (t1 < 5) max(1L, as.integer(ceiling(20 / max(t1, 0.01)))) else 1L
  n_rep <- max(3L, min(10L, as.integer(floor(budget_rep_s * 1e3 / max(t1 * k, 1e-3)))))
  if (t1 > slow_s * 1e3) n_rep <- 2L
  vapply(seq_len(n_rep), function(r) {
    if (t1 > 50) invisible(gc(FALSE))
    wall_ms(f, k)
  }, 0)
}

make_data <- function(rows, n, data, seed) {
  set.seed(seed)
  ramp <- seq(0, 3, length.out = n)
  y <- if (data == "noisy") rep(ramp, rows) + stats::rnorm(rows * n) else
    if (data == "increasing") rep(ramp, rows) else stop("unknown data ", data)
  dim(y) <- c(n, rows)   # one problem per column, each contiguous
  y
}

check_fit <- function(fit, y, ref = NULL) {
  notes <- character()
  fit <- as.numeric(fit)
  n <- nrow(y)
  if (n > 1L) {
    dim(fit) <- dim(y)
    d <- fit[-1L, , drop = FALSE] - fit[-n, , drop = FALSE]
    viol <- max(0, if (decreasing) max(d) else max(-d))
    rm(d)
    notes <- c(notes, sprintf("monotone viol %.2g", viol))
    if (viol > 1e-3 * max(1, diff(range(y)))) notes <- c(notes, "WARNING: wrong direction?")
  }
  if (!is.null(ref)) {
    dmax <- max(abs(fit - as.numeric(ref)))
    notes <- c(notes, sprintf("max|diff| vs cpu %.2g", dmax))
    if (dmax > 1e-9 * max(1, abs(range(y)))) notes <- c(notes, "WARNING: differs from the CPU fit")
  }
  notes
}

## ---------------------------------------------------------------------- cells ----

for (s in shapes) {
  rows <- s[1]; n <- s[2]
  shape <- paste0(label(rows), "x", label(n))
  for (d in datas) {
    cells <- lapply(precs, function(p) list(shape = shape, rows = rows, n = n, data = d,
                                            precision = p))
    if (budget_s > 0 && elapsed() > budget_s) {
      for (cell in cells) for (impl in impls_all)
        emit(impl, cell, note = sprintf("skipped: time budget (%.0f s) spent", budget_s))
      next
    }
    cat(sprintf("[%.1f s] %s %s: generating data\n", elapsed(), shape, d))
    y <- tryCatch(make_data(rows, n, d, as.integer(opt$seed) + rows * 7 + n),
                  error = function(e) e)
    if (inherits(y, "error")) {
      for (cell in cells) for (impl in impls_all)
        emit(impl, cell, note = paste("data:", msg_of(y)))
      next
    }
    offsets <- as.double(seq(0, by = n, length.out = rows + 1))
    cpu_ref <- NULL
    total <- rows * n

    # (c) the CPU engine first (double noisy only): its fit is also the reference
    if (do_cpu && d == "noisy") {
      cell <- list(shape = shape, rows = rows, n = n, data = d, precision = "float64")
      est_s <- 20e-9 * total / min(threads, rows)
      if (!"float64" %in% precs) {
        # nothing: the CPU reference belongs to the float64 row
      } else if (est_s > max_cpu_s) {
        emit(cpu_impl, cell, note = sprintf("skipped: one call est. %.0f s", est_s))
      } else {
        r <- tryCatch({
          f <- function() gpuiso::isotonic(y, decreasing = decreasing, device = "cpu")
          tt <- time_r(f, warm = est_s < 1)
          if (total <= check_max) cpu_ref <- f()
          list(t = tt)
        }, error = function(e) e)
        if (inherits(r, "error")) emit(cpu_impl, cell, note = paste("error:", msg_of(r)))
        else emit(cpu_impl, cell, r$t, note = if (length(r$t) < 3L)
          sprintf("slow: %d calls", length(r$t)) else "")
      }
    }

    for (p in precs) {
      cell <- list(shape = shape, rows = rows, n = n, data = d, precision = p)
      single <- p == "float32"

      # (a) kernel time, data on the device
      if (!has_bench) {
        emit("gpuiso kernel", cell, note = "this gpuiso has no ffi_gpu_bench")
      } else {
        gpu_release()
        r <- tryCatch({
          bench <- get("ffi_gpu_bench", envir = ns)
          b <- .Call(bench, y, NULL, offsets, decreasing, single, 3L)
          if (!is.null(b$error)) stop(b$error)
          if (stats::median(b$ms) < 1000 && reps > 3L) {
            b <- .Call(bench, y, NULL, offsets, decreasing, single, reps)
            if (!is.null(b$error)) stop(b$error)
          }
          b
        }, error = function(e) e)
        if (inherits(r, "error")) {
          emit("gpuiso kernel", cell, note = paste("error:", msg_of(r)))
        } else {
          ws <- gpu_workspace_mib()
          emit("gpuiso kernel", cell, r$ms,
               note = if (is.na(ws)) "" else sprintf("workspace %.0f MiB", ws))
        }
      }

      # (b) end to end from R, host data
      if (!has_precision && single) {
        emit("gpuiso from R", cell, note = "skipped: isotonic() has no precision argument")
      } else {
        r <- tryCatch({
          f <- if (has_precision) {
            prec_arg <- if (single) "single" else "double"
            function() gpuiso::isotonic(y, decreasing = decreasing, device = "gpu",
                                        precision = prec_arg)
          } else {
            function() gpuiso::isotonic(y, decreasing = decreasing, device = "gpu")
          }
          tt <- time_r(f)
          notes <- if (has_precision) character() else "isotonic() has no precision argument: default"
          if (total <= check_max) {
            notes <- c(notes, tryCatch(check_fit(f(), y, if (!single) cpu_ref),
                                       error = function(e) paste("check failed:", msg_of(e))))
          }
          list(t = tt, note = paste(notes, collapse = "; "))
        }, error = function(e) e)
        if (inherits(r, "error")) emit("gpuiso from R", cell, note = paste("error:", msg_of(r)))
        else emit("gpuiso from R", cell, r$t, note = r$note)
      }
    }
    rm(y, cpu_ref)
    invisible(gc(FALSE))
  }
}
gpu_release()
cat(sprintf("[%.1f s] done\n", elapsed()))
close(con)
