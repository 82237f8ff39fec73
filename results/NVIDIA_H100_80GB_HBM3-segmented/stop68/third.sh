#!/usr/bin/env bash
# stop 68, third call, in BUDGET seconds, with the binaries at 4a8ee58 (.devcarry/s68b/build.tar.xz: the CLI, test_gpu,
# concurrent_hang):
#   on an H200: test_gpu's segmented and by-key tests, then both committed segmented compares (the H200's are
#     b9d9619's, stop 61);
#   on an H100: compute-sanitizer racecheck, then synccheck, over the stream path's tests (the x 7 stretches change
#     each launch's tiles; memcheck ran over them at 32ce7da: 0 errors).
# Carry .devcarry/s68b and .devcarry/s68c (this script). Everything into $OUT/stop68d.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68d.tgz
tar xJf .devcarry/s68b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
t=build/tests/test_gpu
if [[ $dev == *H200* ]]; then
  timeout $(left) $t --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
  grep -E '^\[  FAILED' $OUT/segmented-tests.log | head
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
  grep -h "segmented compare" $OUT/summary*.txt 2>/dev/null
else
  for tool in racecheck synccheck; do
    [ $(left) -lt 60 ] && { echo "$tool: not run"; continue; }
    timeout $(left) compute-sanitizer --tool $tool --error-exitcode 9 $t \
      --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-$tool.log 2>&1
    echo "compute-sanitizer $tool (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-$tool.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize-stream-$tool.log | tail -1) $(el)s"
  done
fi
