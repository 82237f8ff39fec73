#!/usr/bin/env bash
# stop 66: test_gpu built on the device at .devcarry/COMMIT (scripts/device_build.sh, deps from
# scripts/pack_deps_for_device.sh), then the whole test_gpu in what is left of BUDGET; packed into $OUT/stop66c.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-580}
final=$OUT; export OUT=$final/w; L=$OUT; mkdir -p $OUT
trap 'tar czf $final/stop66c.tgz -C $final w && rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
TARGETS="test_gpu concurrent_hang" OUT=$L timeout 360 bash scripts/device_build.sh; echo "build rc=$? $(el)s $(cat build/COMMIT)"
left=$(( budget - $(el) ))
(cd build/tests && timeout $left ./test_gpu > $OUT/test_gpu.log 2>&1); rc=$?
echo "test_gpu rc=$rc $(el)s: $(grep -c '^\[       OK' $OUT/test_gpu.log) OK, $(grep -c '^\[  SKIPPED' $OUT/test_gpu.log) skipped, $(grep -c '^\[  FAILED' $OUT/test_gpu.log) FAILED lines"
grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[==========\]' $OUT/test_gpu.log | tail -8
