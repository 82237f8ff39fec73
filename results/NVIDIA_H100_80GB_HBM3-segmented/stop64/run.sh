#!/usr/bin/env bash
# stop 64: the CLI built on the CPU machine for sm_90 at bin/COMMIT (scripts/reducelab.sh test's build, stripped and
# xz'd: the working tree and a carried test_gpu would pass the device tool's 64 MiB), then
#   the committed segmented compares at 2^24 and 2^26; BUILD=1: build test_gpu on the device (scripts/device_build.sh)
# As run (call 4): BUILD=1 was also scripts/device_build.sh's BUILD (the build folder), so test_gpu was built into ./1,
# which the next call's copy of the working tree removed; call 7 built it again into build/ (gpu-tests-f5a01de.txt).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
L=$OUT/logs; mkdir -p $L build
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
xz -dc $d/bin/reducelab.xz > $d/reducelab; chmod +x $d/reducelab
export LD_LIBRARY_PATH=$d/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export REDUCELAB_COMMIT=$(cat $d/bin/COMMIT); echo "CLI: $REDUCELAB_COMMIT"
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
for s in 24 26; do
  timeout 150 $d/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^$s --out $OUT/seg$s > $L/segcompare$s.txt 2>&1
  echo "segcompare 2^$s rc=$? $(el)s"; grep -E "PASS|MISS" $L/segcompare$s.txt | tail -2
done
(cd $OUT && tar czf segc.tgz seg24 seg26 && rm -rf seg24 seg26)
if [ "${BUILD:-0}" = 1 ]; then
  TARGETS="test_gpu concurrent_hang" OUT=$L timeout ${BUILD_S:-400} bash scripts/device_build.sh; echo "build rc=$? $(el)s $(cat build/COMMIT)"
fi
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
