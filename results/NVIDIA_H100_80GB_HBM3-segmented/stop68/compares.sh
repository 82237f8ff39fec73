#!/usr/bin/env bash
# stop 68: after warps' stretches of stash runs x 7 (4441b7d), on whichever GPU the call gets, in BUDGET seconds:
#   1. the whole test_gpu under CTest (the carried binary and its test list; /tmp/b63, the build folder's path on the
#      CPU machine where they were built, linked to this tree so that the list's paths hold), 8 at once as
#      device_run.sh's `tests` step runs them;
#   2. both committed segmented compares (device_run.sh segcompares: 2^26, then 2^24);
#   3. with the time left, compute-sanitizer memcheck over the stream-path tests (test_gpu's, filtered).
# Carry this folder as .devcarry/s68b with build.tar.xz (scripts/pack_for_device.sh build/reducelab
# build/tests/test_gpu build/tests/concurrent_hang) and test_gpu_tests.cmake (build/tests/test_gpu[1]_tests.cmake);
# with the two issue-11 results.json files left out of the copy, the tree and both fit the tool's 64 MiB.
# Everything into $OUT/stop68b.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68b.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
[ -e /tmp/b63 ] || ln -s "$PWD" /tmp/b63
cp "$d/test_gpu_tests.cmake" "build/tests/test_gpu[1]_tests.cmake"
echo 'include("/tmp/b63/build/tests/test_gpu[1]_tests.cmake")' > build/tests/CTestTestfile.cmake
(cd build/tests && timeout $(( $(left) < 330 ? $(left) : 330 )) ctest --output-on-failure --timeout 600 --parallel 8) > $OUT/ctest.log 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed|Total Test time' $OUT/ctest.log | tr '\n' ' ') $(el)s"
grep -E '^\s+[0-9]+ - |\*\*\*Skipped|\*\*\*Failed|Not Run' $OUT/ctest.log | head -12
if [ $(left) -gt 150 ]; then
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
  grep -h "segmented compare" $OUT/summary*.txt 2>/dev/null
fi
if [ $(left) -gt 100 ]; then
  timeout $(left) compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-memcheck.log 2>&1
  echo "compute-sanitizer memcheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-memcheck.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-memcheck.log | tail -1) $(el)s"
fi
