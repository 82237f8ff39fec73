#!/usr/bin/env bash
# Prepared at stop 71 for the next call on either GPU. First, on any GPU, the read/write-mix ceiling
# (scripts/harness/read_write_mix.cu, stop71/mix.sh's runs: 2^26 and 2^24, runs of 1, 8, 32 and 256, int32 keys
# with int32 and double values; about 10 s). Then, on an H200 with .devcarry/s68b carried (main's CLI, test_gpu and
# concurrent_hang; their kernels are main's), stop 68's next-h200.sh steps with the time left: the whole test_gpu,
# both segmented compares (the H200's are b9d9619's, stop 61), memcheck over the stream path's tests.
# Slim the tree first; carry .devcarry/s72 (and .devcarry/s68b for an H200). Into $OUT/s72.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s72.tgz
for lg in 26 24; do
  HARNESS_LOG2N=$lg timeout 60 $d/read_write_mix 1,8,32,256 9 > $OUT/mix-2e$lg.txt 2>&1
  echo "mix 2^$lg rc=$? $(el)s"; cat $OUT/mix-2e$lg.txt
done
[[ $dev == *H200* ]] || exit 0
[ -f .devcarry/s68b/build.tar.xz ] || { echo "an H200, but main's binaries were not carried"; exit 0; }
tar xJf .devcarry/s68b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
timeout $(left) bash scripts/device_run.sh tests segcompares
echo "device_run.sh tests segcompares rc=$? $(el)s"
if [ $(left) -gt 90 ]; then
  timeout $(left) compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-memcheck.log 2>&1
  echo "compute-sanitizer memcheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-memcheck.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-memcheck.log | tail -1) $(el)s"
fi
