#!/usr/bin/env bash
. .gpu/r-env.sh
OUT=/tmp/chk FILE_TIMEOUT=60 JOBS=5 FILES="test-gpu-transfer.R test-isotonic.R test-vjp.R test-isoreg.R test-calibrate.R test-idr.R" timeout 70 bash tools/gpu-check.sh 2>&1 | grep "RESULT\|FAILED"
