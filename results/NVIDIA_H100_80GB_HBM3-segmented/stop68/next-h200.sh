#!/usr/bin/env bash
# Prepared at stop 68 for the next call that is given an H200 (the H200's segmented compares are b9d9619's, stop 61;
# stops 62-68 changed reduce_by_key's stream path). With the binaries in .devcarry/s68b/build.tar.xz (the CLI,
# test_gpu and concurrent_hang, packed at a2fee44 with test_gpu's CTest list; their kernels are 4a8ee58's, HEAD's
# since: later commits changed comments, docs and scripts), in BUDGET seconds:
#   1. the whole test_gpu under CTest (device_run.sh's tests step, which runs a carried test binary from its list);
#   2. both committed segmented compares (device_run.sh segcompares: 2^26, then 2^24; about 130 s on the H200);
#   3. with the time left, compute-sanitizer memcheck over the stream path's tests.
# On another GPU it stops after printing its name. Run `bash scripts/device_tree.sh slim` here first (and `restore`
# after the call), carry .devcarry/s68b and .devcarry/s68c (a copy of this script), ask for nvidia-h200.
# Everything into $OUT/h200.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh h200.tgz
[[ $dev == *H200* ]] || { echo "not an H200: nothing run"; exit 0; }
tar xJf .devcarry/s68b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
timeout $(left) bash scripts/device_run.sh tests segcompares
echo "device_run.sh tests segcompares rc=$? $(el)s"
if [ $(left) -gt 90 ]; then
  timeout $(left) compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-memcheck.log 2>&1
  echo "compute-sanitizer memcheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-memcheck.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-memcheck.log | tail -1) $(el)s"
fi
