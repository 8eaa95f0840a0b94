# The bad-input corpus (helper-corpus.R): every exported function and
# method on hundreds of bad and extreme inputs -- NA, NaN, +-Inf, +-DBL_MAX,
# subnormals, empty and length-1 inputs, wrong types and lengths, factors,
# lists, zero/NA/Inf weights, bad options, misspelled arguments -- each
# expecting a classed error that names the argument or a checked result.
# The cases run in child R processes (one per family, restarted after a
# crash), so that a crash is a failure naming its case, not the end of the
# test run.
#
# On CRAN the families of the fits run (isotonic(), isotonic_vjp(),
# isoreg()); NOT_CRAN runs all. Set GPUISO_CORPUS_OUT to a file name to save
# every case's outcome (an RDS).

corpus_families <- function() {
  all <- c("isotonic", "vjp", "isoreg", "calibrate", "idr", "misc")
  if (identical(Sys.getenv("NOT_CRAN"), "true")) all else c("isotonic", "vjp", "misc")
}

test_that("the corpus runner reports a crash as a failure of its case and goes on", {
  skip_on_os("windows")
  cases <- list(
    .case("selftest", "isotonic", list(y = c(2, 1)), "value", "y", "corpus_check_isotonic", label = "fine"),
    .case("selftest", "corpus_selftest_crash", list(), "value", NULL, NULL, label = "crash"),
    .case("selftest", "isotonic", list(y = NA), "error", "y", NULL, label = "error"),
    .case("selftest", "isotonic", list(y = c(2, 1), decreasing = NA), "value", "decreasing", NULL, label = "spurious"))
  d <- corpus_run_family(cases, normalizePath(test_path()), dirname(find.package("gpuiso")))
  expect_identical(d$outcome, c("checked", "crash", "classed_error", "wrong_spurious_error"))
  expect_match(d$id[2L], "corpus_selftest_crash", fixed = TRUE)
})

test_that("the bad-input corpus gets classed errors or checked results, never a crash", {
  skip_on_os("windows") # child processes by Rscript paths; the cases are portable, the runner less so
  helpers <- normalizePath(test_path())
  lib <- dirname(find.package("gpuiso"))
  cases <- corpus_cases()
  fam <- vapply(cases, `[[`, "", "family")
  run <- corpus_families()
  d <- do.call(rbind, lapply(run, function(f) corpus_run_family(cases[fam == f], helpers, lib)))
  out <- Sys.getenv("GPUISO_CORPUS_OUT")
  if (nzchar(out)) saveRDS(d, out)
  message("[corpus] ", corpus_summary(d))
  by_fam <- table(d$family, factor(d$outcome %in% corpus_pass, c(TRUE, FALSE), c("pass", "fail")))
  message("[corpus] by family: ", paste(sprintf("%s %d/%d", rownames(by_fam), by_fam[, "fail"],
                                                 rowSums(by_fam)), collapse = ", "), " failing")
  expect_gt(nrow(d), 500L)
  crashes <- d[grepl("^crash", d$outcome), ]
  expect(nrow(crashes) == 0L, paste0(
    nrow(crashes), " cases crashed R:\n",
    paste(sprintf("  %s: %s", utils::head(crashes$id, 20L), utils::head(crashes$detail, 20L)),
          collapse = "\n")))
  bad <- d[!d$outcome %in% corpus_pass & !grepl("^crash", d$outcome), ]
  for (o in sort(unique(bad$outcome))) {
    b <- bad[bad$outcome == o, ]
    expect(FALSE, paste0(
      nrow(b), " cases ", o, ":\n",
      paste(sprintf("  %s: %s", utils::head(b$id, 25L), utils::head(b$detail, 25L)),
            collapse = "\n")))
  }
})
