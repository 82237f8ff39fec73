#!/usr/bin/env bash
# stop 73: the GPU tests of the one-head path (686416e: test_gpu packed by pack_for_device.sh into
# .devcarry/s73/build.tar.xz): LibraryReduceByKey.* and ReduceByKeyVariants.*, then compute-sanitizer memcheck over the
# stream path's tests; then load-pattern.sh (its own archive, inside this one) with the time left.
# Carry .devcarry/s73; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s73d.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
t=build/tests/test_gpu
timeout 120 $t --gtest_filter='LibraryReduceByKey.*:ReduceByKeyVariants.*' > $OUT/by-key-tests.log 2>&1
echo "by-key tests rc=$? $(el)s $(grep -E '^\[  (PASSED|FAILED)' $OUT/by-key-tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure' $OUT/by-key-tests.log | head -8
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $t \
  --gtest_filter='LibraryReduceByKey.StreamPathAtEveryRunLength:LibraryReduceByKey.StreamPathWithShortRunLanesAtEveryRunLength' \
  > $OUT/memcheck-stream-path.log 2>&1
echo "memcheck rc=$? $(el)s $(grep -E '^\[  (PASSED|FAILED)' $OUT/memcheck-stream-path.log | tr '\n' ' ')$(grep 'ERROR SUMMARY' $OUT/memcheck-stream-path.log | tail -1)"
BUDGET=$(( $(left) - 5 )) bash $d/load-pattern.sh
echo "load-pattern.sh rc=$? $(el)s"
