#!/usr/bin/env bash
# stop 77, prepared for the next stop (no device time left): the tests and compares of the one-barrier kernel with its
# racecheck fix (b56afa7, local branch lead/one-barrier-sync; build.tar.xz in .devcarry/s78v, commit in build/COMMIT),
# on whichever GPU comes, cut to the device time left: device_run.sh segmented (the 49 segmented GPU tests; memcheck,
# racecheck and synccheck over the by-key stream path's 6 tests, the only ones that reach its kernel, which serves
# n >= 2^24; `reducelab segmented check`; about 256 s on the H100), then segcompares (2^26, then 2^24, about 100 s).
# STEPS overrides the steps. Run it from .devcarry/s78v with that carry, BUDGET=480 or so; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s78v.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh ${STEPS:-segmented segcompares}
echo "device_run.sh ${STEPS:-segmented segcompares} rc=$? $(el)s"
cat $OUT/summary.txt
