#!/usr/bin/env bash
# stop 65: on an H200 its compares at HEAD first (stale since stop 61), then the segmented tests with
# compute-sanitizer, then the prepared A/Bs while time remains; on an H100 (compares current since f5a01de, whose
# kernels' SASS HEAD keeps) the A/Bs first, then the tests and sanitizers.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-575}
tar xJf .devcarry/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
echo "device: $dev"
compares() {
  bash scripts/device_run.sh segcompare; echo "segcompare 2^24 $(el)s"; cp $OUT/summary.txt $OUT/summary-n24.txt
  cp $OUT/segmented-compare.txt $OUT/segmented-compare-n24.txt
  SEG_ARGS="--sizes 2^26" SEG_OUT=results/$dev-segmented-n26 bash scripts/device_run.sh segcompare
  echo "segcompare 2^26 $(el)s"; cp $OUT/summary.txt $OUT/summary-n26.txt
  grep "segmented compare" $OUT/summary-n24.txt $OUT/summary-n26.txt
}
tests() {
  local t=build/tests/test_gpu_segmented_library
  export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
  $t --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
  grep -E '^\[  FAILED' $OUT/segmented-tests.log | head
  local f='LibraryReduceByKey.Stream*:LibraryReduceByKey.BothKernels*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.EntrySends*'
  for tool in racecheck memcheck synccheck; do
    local left=$(( budget - $(el) - 20 ))
    [ $left -lt 40 ] && { echo "$tool: no time left"; continue; }
    timeout $left compute-sanitizer --tool $tool --error-exitcode 9 $t --gtest_filter="$f" > $OUT/sanitize-stream-$tool.log 2>&1
    echo "compute-sanitizer $tool (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-$tool.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize-stream-$tool.log | tail -1) $(el)s"
  done
  build/reducelab segmented check > $OUT/segmented-check.txt 2>&1
  echo "segmented check rc=$? $(tail -1 $OUT/segmented-check.txt) $(el)s"
}
ab() {
  local left=$(( budget - $(el) ))
  echo "A/Bs with ${left}s left"
  [ $left -gt 100 ] && timeout $left bash $d/ab.sh
  echo "A/Bs $(el)s"
}
if [[ $dev == *H200* ]]; then compares; tests; ab; else ab; tests; fi
