#!/usr/bin/env bash
# stop 61: build main at the packed commit on the device (unless a build of that commit is already there), then
# PART=1: by-key tests, the committed segmented compares at 2^24 and 2^26, memcheck over the stream path's tests;
# PART=2: racecheck and synccheck over them, the whole test_gpu, ncu on the stream kernel (runs of 8, 2^24).
set -uo pipefail
cd "$(dirname "$0")/../.."
L=$OUT/logs; mkdir -p $L
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
if [ "$(cat build/COMMIT 2>/dev/null)" != "$(cat .devcarry/COMMIT)" ] || [ ! -x build/tests/test_gpu ]; then
  TARGETS="reducelab_cli test_gpu" OUT=$L timeout 330 bash scripts/device_build.sh; echo "build rc=$? $(el)s"
else echo "build kept from the last call"; fi
echo "build: $(cat build/COMMIT)"
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*'
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
export REDUCELAB_COMMIT=$(cat build/COMMIT)
if [ "${PART:-1}" = 1 ]; then
  timeout 90 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $L/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/bykey-tests.txt | tail -8
  for s in 24 26; do
    timeout 150 build/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^$s --out $OUT/seg$s > $L/segcompare$s.txt 2>&1
    echo "segcompare 2^$s rc=$? $(el)s"; grep -E "PASS|MISS" $L/segcompare$s.txt | tail -2
  done
  (cd $OUT && tar czf segc.tgz seg24 seg26 && rm -rf seg24 seg26)
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/memcheck.txt 2>&1
  echo "memcheck rc=$? $(el)s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/memcheck.txt | tail -3
else
  for tool in racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/$tool.txt 2>&1
    echo "$tool rc=$? $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/$tool.txt | tail -3
  done
  timeout 150 build/tests/test_gpu > $L/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(el)s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $L/test_gpu.txt
  cd .devcarry/s61c
  HARNESS_LOG2N=24 timeout 100 ncu --kernel-name regex:stream_runs --launch-skip 2 --launch-count 1 --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section Occupancy ./bk_int_both 8 1 \
    > $L/ncu-stream-8.txt 2>&1; echo "ncu rc=$? $(el)s"
fi
cd /work 2>/dev/null; (cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
