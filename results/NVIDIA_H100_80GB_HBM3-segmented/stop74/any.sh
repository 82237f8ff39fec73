#!/usr/bin/env bash
# stop 74, for whichever GPU comes. On an H200 (c91632d's binaries, build.tar.xz): the read/write-mix ceiling (2^26
# and 2^24, runs of 1, 8, 32, 256), then device_run.sh tests segcompares (the whole CTest suite; both committed
# segmented reports, the H200's first since b9d9619), then memcheck over the by-key stream path's tests with the time
# left. On an H100: tile-wait.sh (stop74/tile-wait.sh). Carry .devcarry/s74h; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) in
  *H200*) ;;
  *) exec bash $d/tile-wait.sh ;;
esac
source scripts/device_call.sh s74h.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
xz -dc $d/read_write_mix.xz > $d/read_write_mix && chmod +x $d/read_write_mix
for lg in 26 24; do
  HARNESS_HOLD=1 HARNESS_LOG2N=$lg timeout 40 $d/read_write_mix 1,8,32,256 9 > $OUT/mix-2e$lg.txt 2>&1
  echo "mix 2^$lg rc=$? $(el)s"; grep -E '^(mix|read|flat) ' $OUT/mix-2e$lg.txt | grep -E 'L=(8|256) |read'
done
timeout $(left) bash scripts/device_run.sh tests segcompares
echo "device_run.sh tests segcompares rc=$? $(el)s"
cat $OUT/summary.txt
if [ $(left) -gt 40 ]; then
  timeout $(left) compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/memcheck-stream.log 2>&1
  echo "memcheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/memcheck-stream.log | tr '\n' ' ')$(grep 'ERROR SUMMARY' $OUT/memcheck-stream.log | tail -1) $(el)s"
fi
