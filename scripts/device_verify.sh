#!/usr/bin/env bash
# A device call that tests (and, time left, compares) binaries built here: unpacks a carried folder's build.tar.xz
# (scripts/pack_for_device.sh's archive, moved into .devcarry/<name>/) and runs scripts/device_run.sh's steps over it,
# cut to the device time left (BUDGET, device_call.sh). The default steps, `segmented segcompares`, are the segmented
# GPU tests (memcheck, racecheck and synccheck over SEG_SANITIZE_FILTER's tests; `reducelab segmented check`;
# 256-312 s on the H100 at stops 76-78), then the segmented compares at 2^26 and 2^24 (96-127 s). Brings back
# <name>.tgz.
#   bash scripts/device_tree.sh slim                      # here, before the call; restore after it
#   run: BUDGET=480 [STEPS='segmented'] bash scripts/device_verify.sh .devcarry/<name>      (carry .devcarry/<name>)
# The default sanitizer filter is the by-key stream path's 6 tests, the only ones that reach its kernel (it serves
# n >= 2^24); the whole library's takes racecheck past its time limit.
set -uo pipefail
carried=$(cd "${1:?device_verify.sh: name the carried folder (.devcarry/<name>)}" && pwd)
cd "$(dirname "$0")/.."
source scripts/device_call.sh "$(basename "$carried").tgz"
tar xJf "$carried/build.tar.xz" && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
export SEG_SANITIZE_FILTER=${SEG_SANITIZE_FILTER:-'LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*'}
steps=${STEPS:-segmented segcompares}
timeout "$(left)" bash scripts/device_run.sh $steps
echo "device_run.sh $steps rc=$? $(el)s"
cat "$OUT/summary.txt"
