# gpuiso developer targets (GNU make).
#
#   make demo     install what is missing, install gpuiso, run tools/demo.R
#   make check    shellcheck, then R CMD build + R CMD check --as-cran
#                 (tests and vignettes)
#   make install  install what is missing, then gpuiso
#   make deps     install what is missing (Debian packages, via apt-get)
#   make clean    remove build and check products
#
# Developer targets (CPU-only builds in a scratch directory; src/ and R's
# libraries are left alone):
#   make shellcheck  shellcheck on configure, cleanup, tools/*.sh, .ci/run
#                    (skipped, with a message, where shellcheck is missing)
#   make sanitize    AddressSanitizer + UBSan build, the testthat suite (the
#                    bad-input corpus included) one file per R process; fails
#                    on any sanitizer report or failed test (tools/sanitize.sh;
#                    about 5 minutes on two idle cores, 9 on a busy machine)
#   make valgrind    the testthat suite under valgrind memcheck; fails on any
#                    valgrind error (tools/valgrind.sh). Slow: the whole suite
#                    takes hours, so choose files, e.g.
#                    make valgrind TESTS="test-vjp test-isotonic" (6 minutes)
#   make fuzz        random long rows and ragged batches on 1 to 8 threads,
#                    which must agree to the bit (tools/fuzz-threads.sh;
#                    FUZZ_SECONDS=300 and FUZZ_SEED from the clock by default)
#
# Variables: LIB=DIR installs into (and the demo loads from) library DIR
# instead of R's default; R=..., RSCRIPT=... choose the R binaries;
# DEMO_PNG=FILE is where the demo writes its plot (default demo.png);
# TESTS="test-a b c*" the test files of sanitize and valgrind (default all;
# with or without "test-" and ".R", shell patterns allowed). NOT_CRAN=true
# in the environment runs the not-CRAN tests too.

PKG      := $(shell sed -n 's/^Package:[[:space:]]*//p' DESCRIPTION)
VERSION  := $(shell sed -n 's/^Version:[[:space:]]*//p' DESCRIPTION)
TARBALL  := $(PKG)_$(VERSION).tar.gz
CHECKDIR := $(PKG).Rcheck

R        ?= R
RSCRIPT  ?= Rscript
LIB      ?=
DEMO_PNG ?= demo.png

# Without pdflatex the PDF manual cannot be made: R CMD check would report
# an ERROR for it, so it is skipped. R 4.2 then also skips its HTML manual
# check, which the recipe below runs itself with HTML Tidy, on every Rd file.
MANUAL   := $(if $(shell command -v pdflatex 2>/dev/null),,--no-manual)

# Offline: no CRAN incoming checks that need the network (URLs, DOIs,
# versions on CRAN). See cran-comments.md for the one NOTE that remains.
CHECK_ENV  := _R_CHECK_CRAN_INCOMING_REMOTE_=false
CHECK_ARGS ?= --as-cran $(MANUAL)

# Rd -> HTML -> tidy for each help page of the package that was checked.
HTML_CHECK := db <- tools::Rd_db("$(PKG)", lib.loc = "$(CHECKDIR)"); \
  out <- tempfile(fileext = ".html"); bad <- 0L; \
  for (n in names(db)) { tools::Rd2HTML(db[[n]], out, package = "$(PKG)"); \
    r <- tools:::tidy_validate(out); \
    if (NROW(r)) { bad <- bad + 1L; cat(n, ":\n"); \
      print(r[, c("line", "msg"), drop = FALSE], quote = FALSE) } }; \
  cat("* checking HTML version of manual (HTML Tidy) ...", \
      if (bad) "WARNING" else "OK", "\n"); \
  quit(status = as.integer(bad > 0L))

# Shell scripts that shellcheck checks (-x: it follows what they source).
SH_FILES := configure cleanup $(wildcard tools/*.sh) .ci/run
SHELLCHECK ?= shellcheck
TESTS    ?=

LIBARG   := $(if $(LIB),--library=$(LIB))
LIBENV   := $(if $(LIB),R_LIBS="$(abspath $(LIB))$${R_LIBS:+:$$R_LIBS}")

.PHONY: all deps install demo check clean shellcheck sanitize valgrind fuzz

all: check

deps:
	@sh tools/install-deps.sh

install: deps
	$(if $(LIB),mkdir -p "$(LIB)")
	$(R) CMD INSTALL --preclean $(LIBARG) .

demo: install
	$(LIBENV) $(RSCRIPT) tools/demo.R "$(DEMO_PNG)"

shellcheck:
	@if command -v $(SHELLCHECK) >/dev/null 2>&1; then \
	  echo "$(SHELLCHECK) -x $(SH_FILES)"; \
	  $(SHELLCHECK) -x $(SH_FILES) && echo "shellcheck: $(words $(SH_FILES)) scripts, no findings"; \
	else \
	  echo "shellcheck: not installed, skipped (Debian package shellcheck)"; \
	fi

sanitize: deps
	@R="$(R)" RSCRIPT="$(RSCRIPT)" TESTS="$(TESTS)" sh tools/sanitize.sh

valgrind: deps
	@sh tools/install-deps.sh valgrind
	@R="$(R)" RSCRIPT="$(RSCRIPT)" TESTS="$(TESTS)" sh tools/valgrind.sh

fuzz: deps
	@R="$(R)" RSCRIPT="$(RSCRIPT)" sh tools/fuzz-threads.sh

# Build the tarball, shellcheck the scripts, check the tarball, then: fail
# on any ERROR or WARNING or shellcheck finding, show the NOTEs, and close
# with the testthat counts as "N passed, N failed, N skipped".
check: deps
	rm -rf "$(CHECKDIR)" $(PKG)_*.tar.gz
	$(R) CMD build .
	@status=0; sc=""; \
	$(MAKE) --no-print-directory shellcheck || { status=1; sc=1; }; \
	echo "$(CHECK_ENV) $(R) CMD check $(CHECK_ARGS) $(TARBALL)"; \
	env $(CHECK_ENV) $(R) CMD check $(CHECK_ARGS) $(TARBALL) || status=$$?; \
	log="$(CHECKDIR)/00check.log"; \
	if [ ! -f "$$log" ]; then echo "check: $$log was not written"; exit 1; fi; \
	if [ -n "$(MANUAL)" ]; then $(RSCRIPT) --vanilla -e '$(HTML_CHECK)' || status=1; fi; \
	echo; echo "==== problems reported in $$log"; \
	awk 'function flush() { if (bad) printf "%s", seg; seg = ""; bad = 0 } \
	     /^\* / { flush() } \
	     { seg = seg $$0 "\n" } \
	     /^\* .*(NOTE|WARNING|ERROR)$$/ || /^ *(NOTE|WARNING|ERROR)$$/ { bad = 1 } \
	     /^Status:/ { seg = ""; bad = 0 } \
	     END { flush() }' "$$log"; \
	grep '^Status:' "$$log" || status=1; \
	if grep -Eq '^Status:.*(ERROR|WARNING)' "$$log"; then status=1; fi; \
	rout="$(CHECKDIR)/tests/testthat.Rout"; \
	[ -f "$$rout" ] || rout="$$rout.fail"; \
	counts=$$(grep -Eo '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$$rout" 2>/dev/null | tail -n 1); \
	if [ -z "$$counts" ]; then \
	  echo "check: no testthat summary in $(CHECKDIR)/tests/testthat.Rout"; exit 1; \
	fi; \
	set -- $$(echo "$$counts" | tr -cs '0-9' ' '); \
	[ "$$1" -eq 0 ] || status=1; \
	[ -z "$$sc" ] || echo "check: shellcheck reported problems (above, before R CMD check)"; \
	echo "$$4 passed, $$1 failed, $$3 skipped"; \
	exit $$status

clean:
	rm -rf "$(CHECKDIR)" $(PKG)_*.tar.gz "$(DEMO_PNG)" Rplots.pdf \
	  vignettes/*.html vignettes/*.R vignettes/*_files inst/doc
	sh ./cleanup
