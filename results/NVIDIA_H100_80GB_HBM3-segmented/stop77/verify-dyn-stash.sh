#!/usr/bin/env bash
# stop 77, as it ran (.devcarry/s77v/verify.sh, STEPS=segmented BUDGET=265, after stop77/stash-dyn-ab.sh in the same
# call): the GPU tests of b4292fc (local branch lead/dyn-stash: one block barrier a tile and the dynamic stash;
# build.tar.xz in .devcarry/s77v, commit in build/COMMIT): device_run.sh segmented (the segmented GPU tests; memcheck,
# racecheck and synccheck over the by-key stream path's 6 tests; `reducelab segmented check`), cut by the budget in
# racecheck. Stop 76's prepared verify script with STEPS added (that one, never run, is gone); since stop 77
# scripts/device_verify.sh does this for any carried build.
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
