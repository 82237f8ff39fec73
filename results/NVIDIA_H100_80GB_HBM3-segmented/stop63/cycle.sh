#!/usr/bin/env bash
# stop 63 on the H100: build main at the packed commit on the device (unless that build is already there), then
# PART=1: same-run A/B of the library call (by_key_library_ab.cu: main = 5bec947, pdl = main + the one-pass kernel as
#         the stream kernel's programmatic dependent, final = the packed commit: pdl + a sample of 16 windows of 256 +
#         the lanes' width picked by the sample); the by-key tests; memcheck/racecheck/synccheck over the stream path's
# PART=2: the whole test_gpu, the committed segmented compares at 2^24 and 2^26.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
L=$OUT/logs; mkdir -p $L
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*'
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
if [ "${PART:-1}" = 1 ]; then
  (cd $d && for f in *.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
  python3 scripts/harness/ab_turns.py --trees main,pdl,final --configs int,dbl,fmax --sizes 24,26 \
    --binary "$d/bk_{config}_{tree}" --args '1,8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab3.txt > $OUT/ab3_summary.txt 2>&1
  echo "ab3 rc=$? $(el)s"; cat $OUT/ab3_summary.txt
fi
if [ "$(cat build/COMMIT 2>/dev/null)" != "$(cat .devcarry/COMMIT)" ] || [ ! -x build/tests/test_gpu ]; then
  TARGETS="reducelab_cli test_gpu" OUT=$L timeout 330 bash scripts/device_build.sh; echo "build rc=$? $(el)s"
else echo "build kept from the last call"; fi
echo "build: $(cat build/COMMIT)"
export REDUCELAB_COMMIT=$(cat build/COMMIT)
case "${PART:-1}" in
1)
  timeout 90 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $L/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/bykey-tests.txt | tail -8
  for tool in memcheck synccheck racecheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/$tool.txt 2>&1
    echo "$tool rc=$? $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/$tool.txt | tail -3
  done
  ;;
2)
  timeout 200 build/tests/test_gpu > $L/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(el)s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/test_gpu.txt | tail -6
  for s in 24 26; do
    timeout 150 build/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^$s --out $OUT/seg$s > $L/segcompare$s.txt 2>&1
    echo "segcompare 2^$s rc=$? $(el)s"; grep -E "PASS|MISS" $L/segcompare$s.txt | tail -2
  done
  (cd $OUT && tar czf segc.tgz seg24 seg26 && rm -rf seg24 seg26)
  ;;
esac
(cd "$OUT" && tar czf logs${PART:-1}.tgz logs && rm -rf logs)
