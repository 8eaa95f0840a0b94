library(testthat)
library(gpuiso)

test_check("gpuiso")
