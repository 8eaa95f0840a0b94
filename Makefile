# gpuiso developer targets (GNU make).
#
#   make demo     install what is missing, install gpuiso, run tools/demo.R
#   make check    R CMD build + R CMD check --as-cran (tests and vignettes)
#   make install  install what is missing, then gpuiso
#   make deps     install what is missing (Debian packages, via apt-get)
#   make clean    remove build and check products
#
# Variables: LIB=DIR installs into (and the demo loads from) library DIR
# instead of R's default; R=..., RSCRIPT=... choose the R binaries;
# DEMO_PNG=FILE is where the demo writes its plot (default demo.png).

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

LIBARG   := $(if $(LIB),--library=$(LIB))
LIBENV   := $(if $(LIB),R_LIBS="$(abspath $(LIB))$${R_LIBS:+:$$R_LIBS}")

.PHONY: all deps install demo check clean

all: check

deps:
	@sh tools/install-deps.sh

install: deps
	$(if $(LIB),mkdir -p "$(LIB)")
	$(R) CMD INSTALL --preclean $(LIBARG) .

demo: install
	$(LIBENV) $(RSCRIPT) tools/demo.R "$(DEMO_PNG)"

# Build the tarball, check it, then: fail on any ERROR or WARNING, show the
# NOTEs, and close with the testthat counts as "N passed, N failed, N skipped".
check: deps
	rm -rf "$(CHECKDIR)" $(PKG)_*.tar.gz
	$(R) CMD build .
	@status=0; \
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
	echo "$$4 passed, $$1 failed, $$3 skipped"; \
	exit $$status

clean:
	rm -rf "$(CHECKDIR)" $(PKG)_*.tar.gz "$(DEMO_PNG)" Rplots.pdf \
	  vignettes/*.html vignettes/*.R vignettes/*_files inst/doc
	sh ./cleanup
