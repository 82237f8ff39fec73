#!/usr/bin/env bash
# stop 67, second call (carry .devcarry/s67b: this folder and build.tar.xz at 7958858): compute-sanitizer racecheck
# over the stream-path tests but the same-bits one (its 2^22-element run does not finish under racecheck in 120 s);
# then on an H200 both committed segmented compares, on an H100 Nsight Compute on the stream kernel at runs of 8 and
# 256 (plus over int32, 2^26). Everything into $OUT/stop67c.tgz.
# (As run, its first lines set $OUT and the timers up inline, and it packed the report folders a second time beside
# $OUT's copies; scripts/device_call.sh holds those lines since, without the second copy.)
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop67c.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
t=build/tests/test_gpu_segmented_library
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $t \
  --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*:-LibraryReduceByKey.StreamPathGivesTheSameBitsEveryRun' \
  > $OUT/sanitize-stream-racecheck.log 2>&1
echo "compute-sanitizer racecheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-racecheck.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-racecheck.log | tail -1) $(el)s"
if [[ $dev == *H200* ]]; then
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
else
  for L in 8 256; do
    [ $(left) -lt 60 ] && { echo "ncu runs of $L: not run"; continue; }
    timeout $(left) ncu --kernel-name-base mangled --kernel-name 'regex:stream_runs' \
      --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
      --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
      build/reducelab segmented compare --variants reducelab::reduce_by_key --ops plus --types int32 \
      --segments uniform:$L --sizes 2^26 --samples 5 > $OUT/ncu-by-key-runs$L.txt 2>&1
    echo "ncu runs of $L rc=$? $(grep -E ' Duration|DRAM Throughput|Issued Warp Per Scheduler' $OUT/ncu-by-key-runs$L.txt | tr -s ' ' | tr '\n' ';') $(el)s"
  done
fi
