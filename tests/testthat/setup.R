# Settings for the test run: at most two threads, as CRAN asks (the
# package's default is half the processors). The shared helpers are in
# helper-common.R, the independent oracles in helper-reference.R.

options(gpuiso.threads = 2L)

# Where the tests are: test-<name>.R tests the code of R/<name>.R (what its
# tests call is defined there), with its snapshots in _snaps/<name>.md;
# what several test files share is in helper-*.R. Six suites test across
# the package instead: test-corpus.R (the bad-input corpus over every
# export, helper-corpus.R), test-exact.R (the differential test against
# exact rational arithmetic, helper-exact.R), test-reference.R (the engine
# against independent references), test-threads.R (long problems solved in
# pieces: the same fit and gradient on 1 to 8 threads, helper-threads.R;
# more than 2 only outside R CMD check), and test-gpu.R and
# test-gpu-transfer.R (the GPU engine itself, run on a GPU machine by
# tools/gpu-check.sh).
