#!/bin/sh
# Install the benchmark peers that are not packaged for Debian into bench/.lib
# (a private library that is ignored by git and excluded from the R build).
#
# Peers used by bench/cpu.R:
#   stats::isoreg          - base R
#   Iso::pava              - apt-get install r-cran-iso      (or install.packages("Iso"))
#   fdrtool::monoreg       - apt-get install r-cran-fdrtool  (or install.packages("fdrtool"))
#   monotone::monotone     - CRAN package "monotone" (Busing 2022, JSS 102 c01), installed here
#
# Usage (from the repository root):
#   sh bench/install-peers.sh [SOURCE]
#
# SOURCE may be
#   - a source tarball, e.g. monotone_0.1.2.tar.gz from
#     https://cran.r-project.org/src/contrib/Archive/monotone/ , or
#   - an unpacked source directory (e.g. from a checkout of github.com/cran/monotone:
#       git clone https://github.com/cran/monotone /tmp/monotone-src/monotone
#     or, from a bare mirror:
#       mkdir -p /tmp/monotone-src && git --git-dir=MIRROR archive --prefix=monotone/ HEAD | tar -x -C /tmp/monotone-src
#     and pass /tmp/monotone-src/monotone).
# Without SOURCE the script tries install.packages("monotone") from CRAN into bench/.lib.
#
# The peer's code is never committed to this repository.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
lib="$here/.lib"
mkdir -p "$lib"

R=${R:-R}

if [ "$#" -ge 1 ]; then
    src=$1
    if [ ! -e "$src" ]; then
        echo "install-peers.sh: '$src' does not exist" >&2
        exit 1
    fi
    "$R" CMD INSTALL --no-test-load -l "$lib" "$src"
else
    "$R" --vanilla -s -e "install.packages('monotone', lib = '$lib', repos = 'https://cloud.r-project.org')"
fi

# Check that the peers load.
"$R" --vanilla -s -e "
ok <- requireNamespace('monotone', lib.loc = '$lib', quietly = TRUE)
cat('monotone in bench/.lib:', if (ok) 'OK' else 'MISSING', '\n')
for (p in c('Iso', 'fdrtool'))
  cat(p, ': ', if (requireNamespace(p, quietly = TRUE)) 'OK' else paste0('MISSING (apt-get install r-cran-', tolower(p), ')'), '\n', sep = '')
if (!ok) quit(status = 1)
"
