#!/usr/bin/env bash
. .gpu/r-env.sh
export R_LIBS=$PWD/.gpu/lib
timeout 100 Rscript bench/gpu/profile.R .gpu/lib 1e5 1e6 1e7
