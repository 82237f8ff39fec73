#!/usr/bin/env bash
# stop 77 (copy of stop 76's verify.sh): lead/dyn-stash's binaries (one barrier a tile, the dynamic stash)
# whichever GPU comes, cut to the device time left: with lead/one-barrier's binaries (753a06b, build.tar.xz in
# .devcarry/s76v; commit in build/COMMIT), device_run.sh segmented (the segmented GPU tests; memcheck, racecheck and
# synccheck over the by-key stream path's 6 tests, the only ones that reach its kernel, which serves n >= 2^24;
# `reducelab segmented check`; about 256 s on the H100), then segcompares (2^26 first, then 2^24, about 100 s). Run it
# from .devcarry/s76v with that carry, BUDGET=480 or so; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s77v.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh ${STEPS:-segmented segcompares}
echo "device_run.sh ${STEPS:-segmented segcompares} rc=$? $(el)s"
cat $OUT/summary.txt
