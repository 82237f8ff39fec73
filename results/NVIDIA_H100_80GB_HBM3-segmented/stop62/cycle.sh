#!/usr/bin/env bash
# stop 62, on the H100 (first lent since stop 55): build main at the packed commit on the device (unless a build of
# that commit is already there), then
# PART=1: by-key tests, the committed segmented compares at 2^24 and 2^26;
# PART=2: the library's compare (issue 12's sweep), the whole test_gpu, memcheck/racecheck/synccheck over the
#         by-key stream path's tests;
# PART=3: Nsight Compute source counters on the stream kernel, plus and maximum over float at 2^26, runs of 8.
set -uo pipefail
cd "$(dirname "$0")/../.."
L=$OUT/logs; mkdir -p $L
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
if [ "$(cat build/COMMIT 2>/dev/null)" != "$(cat .devcarry/COMMIT)" ] || [ ! -x build/tests/test_gpu ]; then
  TARGETS="reducelab_cli test_gpu" OUT=$L timeout 360 bash scripts/device_build.sh; echo "build rc=$? $(el)s"
else echo "build kept from the last call"; fi
echo "build: $(cat build/COMMIT)"
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*'
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
export REDUCELAB_COMMIT=$(cat build/COMMIT)
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
case "${PART:-1}" in
1)
  timeout 90 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $L/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/bykey-tests.txt | tail -8
  for s in 24 26; do
    timeout 170 build/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^$s --out $OUT/seg$s > $L/segcompare$s.txt 2>&1
    echo "segcompare 2^$s rc=$? $(el)s"; grep -E "PASS|MISS" $L/segcompare$s.txt | tail -2
  done
  (cd $OUT && tar czf segc.tgz seg24 seg26 && rm -rf seg24 seg26)
  ;;
2)
  timeout 200 build/reducelab compare --variants 'reducelab::reduce,reducelab::reduce(host),cub::DeviceReduce::Reduce,thrust::reduce,cub::DeviceScan::InclusiveScan(last),thrust::inclusive_scan(last),thrust::inclusive_scan(host)' \
    --no-confirm --sizes 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28 --samples 15 --out $OUT/lib > $L/compare-lib.txt 2>&1
  echo "libcompare rc=$? $(el)s"; grep -E "PASS|MISS" $L/compare-lib.txt | tail -2
  (cd $OUT && tar czf lib.tgz lib && rm -rf lib)
  timeout 240 build/tests/test_gpu > $L/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(el)s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $L/test_gpu.txt
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/$tool.txt 2>&1
    echo "$tool rc=$? $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/$tool.txt | tail -3
  done
  ;;
3)
  for op in plus maximum; do
    timeout 120 ncu --kernel-name-base mangled --kernel-name 'regex:_ZN9reducelab9segmented7kernels.*stream_runs' \
      --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters \
      --section InstructionStats --section SchedulerStats \
      build/reducelab segmented compare --variants reducelab::reduce_by_key --ops $op --types float --segments uniform:8 \
      --sizes 2^26 --samples 5 --out $L/ncu-$op-out > $L/ncu-$op.txt 2>&1
    echo "ncu $op rc=$? $(el)s"; grep -E "Duration|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" $L/ncu-$op.txt | head -6
  done
  ;;
esac
(cd "$OUT" && tar czf logs$PART.tgz logs && rm -rf logs)
