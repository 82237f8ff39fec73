#!/usr/bin/env bash
# stop 66, the session's last call: on an H200 the compares at c6a8949 (stale there since stop 61) and the segmented
# tests; on an H100 (whose compares this stop retook twice) compute-sanitizer through the entry at c6a8949:
# memcheck and synccheck over every LibraryReduceByKey and LibrarySegmentedReduce test, then racecheck over the
# by-key tests while time remains. Packed into $OUT/stop66d.tgz. Carry .devcarry/s66 and .devcarry/build.tar.xz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-480}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
if [[ $dev == *H200* ]]; then
  BUDGET=$budget bash $d/compares.sh; mv $OUT/stop66b.tgz $OUT/stop66d.tgz; exit
fi
final=$OUT; export OUT=$final/w; mkdir -p $OUT
trap 'tar czf $final/stop66d.tgz -C $final w && rm -rf $final/w' EXIT
tar xJf .devcarry/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
t=build/tests/test_gpu_segmented_library
run() {  # tool filter name
  local left=$(( budget - $(el) - 10 ))
  [ $left -lt 40 ] && { echo "$1 $3: no time left"; return; }
  timeout $left compute-sanitizer --tool $1 --error-exitcode 9 $t --gtest_filter="$2" > $OUT/sanitize-$3-$1.log 2>&1
  echo "compute-sanitizer $1 ($3) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-$3-$1.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize-$3-$1.log | tail -1) $(el)s"
}
run memcheck 'LibraryReduceByKey.*' by-key
run synccheck 'LibraryReduceByKey.*' by-key
run memcheck 'LibrarySegmentedReduce.*' segmented
run racecheck 'LibraryReduceByKey.*' by-key
