# Settings for the test run: at most two threads, as CRAN asks (the
# package's default is half the processors). The shared helpers are in
# helper-common.R, the independent oracles in helper-reference.R.

options(gpuiso.threads = 2L)
