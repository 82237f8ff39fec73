#!/usr/bin/env bash
# stop 66: the compares at c6a8949 (2^26, then 2^24) and the segmented library's tests on whichever GPU the call gets,
# packed into $OUT/stop66b.tgz. Carry .devcarry/s66 and .devcarry/build.tar.xz.
set -uo pipefail
cd "$(dirname "$0")/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-570}
final=$OUT; export OUT=$final/w; mkdir -p $OUT
trap 'tar czf $final/stop66b.tgz -C $final w && rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
tar xJf .devcarry/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
SEG_ARGS="--sizes 2^26" SEG_OUT=results/$dev-segmented-n26 timeout $(( budget - $(el) )) bash scripts/device_run.sh segcompare
echo "segcompare 2^26 rc=$? $(el)s"; cp $OUT/summary.txt $OUT/summary-n26.txt; cp $OUT/segmented-compare.txt $OUT/segmented-compare-n26.txt
grep "segmented compare" $OUT/summary-n26.txt
timeout $(( budget - $(el) )) bash scripts/device_run.sh segcompare
echo "segcompare 2^24 rc=$? $(el)s"; grep "segmented compare" $OUT/summary.txt
left=$(( budget - $(el) ))
if [ $left -gt 20 ]; then
  LD_LIBRARY_PATH=$PWD/build/lib timeout $left build/tests/test_gpu_segmented_library \
    --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(grep -c '^\[       OK' $OUT/segmented-tests.log) OK $(el)s"
fi
