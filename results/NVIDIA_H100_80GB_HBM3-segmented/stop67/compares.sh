#!/usr/bin/env bash
# stop 67: after the non-commutative stream path landed (7958858), on whichever GPU the call gets: the segmented
# library's tests, compute-sanitizer racecheck and synccheck over the stream-path tests, then both committed segmented
# compares (device_run.sh segcompares: 2^26, then 2^24); all packed into $OUT/stop67b.tgz (the report folders
# inside, as device_run.sh packs them).
# Carry this folder as .devcarry/s67b with build.tar.xz (scripts/pack_for_device.sh build/reducelab
# build/tests/test_gpu_segmented_library).
# (As run, its first lines set $OUT and the timers up inline, and it packed the report folders a second time beside
# $OUT's copies; scripts/device_call.sh holds those lines since, without the second copy.)
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop67b.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
t=build/tests/test_gpu_segmented_library
timeout $(left) $t --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
grep -E '^\[  FAILED' $OUT/segmented-tests.log | head
for tool in racecheck synccheck; do
  [ $(left) -lt 300 ] && { echo "$tool: not run"; continue; }
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $t \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-$tool.log 2>&1
  echo "compute-sanitizer $tool (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-$tool.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-$tool.log | tail -1) $(el)s"
done
timeout $(left) bash scripts/device_run.sh segcompares
echo "segcompares rc=$? $(el)s"
grep -h "segmented compare" $OUT/summary*.txt 2>/dev/null
