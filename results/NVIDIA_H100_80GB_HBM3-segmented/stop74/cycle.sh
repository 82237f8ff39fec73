#!/usr/bin/env bash
# stop 74: main at the commit in build/COMMIT (warp 0's look-backs merged) on whichever GPU comes. On an H200 first the
# read/write-mix ceiling (stop71/mix.sh's runs, the binary of stop 73: 2^26 and 2^24, runs of 1, 8, 32 and 256; about
# 10 s). Then on either GPU: device_run.sh tests (the whole CTest suite, 8 at once), segcompares (both committed
# segmented reports) and segmented (the segmented GPU tests, then memcheck, racecheck and synccheck over the by-key
# stream path's tests, `reducelab segmented check`). Carry .devcarry/s74c (build.tar.xz by pack_for_device.sh);
# slim the tree first. Into $OUT/s74c.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s74c.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
if [[ $dev == *H200* ]]; then
  xz -dc $d/read_write_mix.xz > $d/read_write_mix && chmod +x $d/read_write_mix
  for lg in 26 24; do
    HARNESS_HOLD=1 HARNESS_LOG2N=$lg timeout 60 $d/read_write_mix 1,8,32,256 9 > $OUT/mix-2e$lg.txt 2>&1
    echo "mix 2^$lg rc=$? $(el)s"; cat $OUT/mix-2e$lg.txt
  done
fi
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh tests segcompares segmented
echo "device_run.sh tests segcompares segmented rc=$? $(el)s"
cat $OUT/summary.txt
