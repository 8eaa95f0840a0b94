# Where the time of iso_calibrate(device = "gpu") goes, on the device machine
# (R_LIBS pointing at a build of gpuiso for its GPU): whole calls, the .Call
# alone, grouped calls, an Rprof profile, and the CPU for comparison, on the
# data of bench/calibration.R (6.5 million scores).
#     Rscript tools/gpu-calprobe.R
library(gpuiso)
set.seed(1); n <- 6.5e6
s <- round(rbeta(n, 2, 6), 6); y <- rbinom(n, 1, plogis(1.4 * qlogis(pmin(pmax(s, 1e-6), 1 - 1e-6)) - 1.2))
seg <- sample.int(280, n, TRUE, prob = (1:280)^-0.8)
for (i in 1:3) print(system.time(cal <- iso_calibrate(s, y, device = "gpu"))[["elapsed"]])
for (i in 1:3) print(system.time(.Call(gpuiso:::ffi_gpu_calibrate, s, as.double(y), NULL, NULL, 1L, 8L))[["elapsed"]])
for (i in 1:2) print(system.time(cal <- iso_calibrate(s, y, groups = seg, device = "gpu"))[["elapsed"]])
Rprof("/tmp/p.out", interval = 0.005); for (i in 1:5) cal <- iso_calibrate(s, y, device = "gpu"); Rprof(NULL)
print(head(summaryRprof("/tmp/p.out")$by.total, 12))
print(system.time(cal <- iso_calibrate(s, y, device = "cpu")))
options(gpuiso.threads = 1L); print(system.time(cal <- iso_calibrate(s, y, device = "cpu")))
