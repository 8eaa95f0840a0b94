#!/bin/sh
# Install what building, checking and running gpuiso needs on Debian:
# R with its compilers, the suggested R packages, and the tools that
# `R CMD check --as-cran` uses offline (pandoc for the vignette, qpdf,
# HTML Tidy for the HTML manual, checkbashisms from devscripts for the
# configure script) and shellcheck for the shell scripts, all from Debian's
# packages. Arguments name more Debian packages, each providing the
# command of its name (make valgrind: valgrind).
#
# Idempotent: when everything is present it installs nothing and prints
# nothing. Runs apt-get as root, or through sudo otherwise.
#
#   sh tools/install-deps.sh [package ...]
set -eu

# Debian package, then what shows it is there by other means:
# "cmd:NAME" a command on PATH, "r:NAME" an R package that loads.
deps='
r-base-dev        cmd:R
r-cran-testthat   r:testthat
r-cran-knitr      r:knitr
r-cran-rmarkdown  r:rmarkdown
r-cran-iso        r:Iso
r-cran-fdrtool    r:fdrtool
r-cran-gmp        r:gmp
r-cran-ggplot2    r:ggplot2
r-cran-quadprog   r:quadprog
pandoc            cmd:pandoc
qpdf              cmd:qpdf
tidy              cmd:tidy
devscripts        cmd:checkbashisms
shellcheck        cmd:shellcheck
make              cmd:make
'
for extra in "$@"; do
  deps="$deps$extra cmd:$extra
"
done

have_deb() {
  command -v dpkg-query >/dev/null 2>&1 &&
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# R packages that load, from one R session (skipped when there is no R).
r_pkgs=$(printf '%s\n' "$deps" | sed -n 's/.* r:\([A-Za-z0-9.]*\)$/\1/p' | tr '\n' ' ')
r_ok=""
if command -v Rscript >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  r_ok=$(Rscript --vanilla -e '
    for (p in commandArgs(TRUE))
      if (requireNamespace(p, quietly = TRUE)) cat(p, "")' $r_pkgs 2>/dev/null) || r_ok=""
fi

missing=""
while read -r deb probe; do
  [ -n "$deb" ] || continue
  case "$probe" in
    cmd:*) command -v "${probe#cmd:}" >/dev/null 2>&1 && continue ;;
    r:*) case " $r_ok " in *" ${probe#r:} "*) continue ;; esac ;;
  esac
  have_deb "$deb" && continue
  missing="$missing $deb"
done <<EOF
$deps
EOF
# R itself also needs Rscript and a C compiler (r-base-dev brings both).
if ! command -v Rscript >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
  case "$missing" in *r-base-dev*) ;; *) missing="$missing r-base-dev" ;; esac
fi

[ -n "$missing" ] || exit 0

echo "install-deps: installing$missing"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: apt-get not found; install these (or their equivalents) by hand:$missing" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "install-deps: not root and no sudo; as root run: apt-get install$missing" >&2
  exit 1
fi

$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends $missing
