#!/usr/bin/env bash
# stop 62, last call (H100): build the packed commit on the device, then in order of need (the call may be cut
# short by the session's device time): by-key tests, memcheck over the stream path's tests, the segmented compare
# at 2^26, synccheck over the stream path's tests, the whole test_gpu. Every log is a file of its own in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
TARGETS="reducelab_cli test_gpu" OUT=/tmp timeout 330 bash scripts/device_build.sh; echo "build rc=$? $(el)s"
echo "build: $(cat build/COMMIT)"
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*'
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
export REDUCELAB_COMMIT=$(cat build/COMMIT)
timeout 60 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $OUT/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $OUT/bykey-tests.txt | tail -8
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$? $(el)s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt | tail -3
timeout 130 build/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^26 --out $OUT/seg26 > $OUT/segcompare26.txt 2>&1
echo "segcompare 2^26 rc=$? $(el)s"; grep -E "PASS, " $OUT/segcompare26.txt | tail -1
(cd $OUT && tar czf seg26.tgz seg26 && rm -rf seg26)
timeout 60 compute-sanitizer --tool synccheck --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $OUT/synccheck.txt 2>&1
echo "synccheck rc=$? $(el)s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/synccheck.txt | tail -3
timeout 150 build/tests/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(el)s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $OUT/test_gpu.txt
