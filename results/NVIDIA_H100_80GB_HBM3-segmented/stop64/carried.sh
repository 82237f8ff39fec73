#!/usr/bin/env bash
# stop 64: the binaries built on the CPU machine for sm_90 at the commit in bin/COMMIT (scripts/reducelab.sh test's
# build, xz'd with libgomp beside them), so that no device time goes to building. Then:
#   the whole test_gpu; the committed segmented compares at 2^24 and 2^26 (results/<device>-segmented/);
#   SAN="memcheck racecheck": compute-sanitizer over the stream path's tests; AB=1: the long-stretch A/B (cycle.sh's)
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
L=$OUT/logs; mkdir -p $L build/tests
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
for b in reducelab tests/test_gpu tests/concurrent_hang; do xz -dc $d/bin/$(basename $b).xz > build/$b; chmod +x build/$b; done
export LD_LIBRARY_PATH=$d/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cp $d/bin/COMMIT build/COMMIT; export REDUCELAB_COMMIT=$(cat build/COMMIT); echo "binaries: $REDUCELAB_COMMIT"
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*:LibraryReduceByKey.OnePassKernelClaiming*'
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
if [ "${AB:-0}" = 1 ]; then
  (cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
  CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 python3 scripts/harness/ab_turns.py --trees main,long --configs int,dbl,fmax --sizes 24,26 \
    --binary "$d/bk_{config}_{tree}" --args '8,256,4096,-1 7' --timeout 60 --out $OUT/ab_long.txt > $OUT/ab_long_summary.txt 2>&1
  echo "ab_long (held) rc=$? $(el)s"; cat $OUT/ab_long_summary.txt
fi
timeout 200 build/tests/test_gpu > $L/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(el)s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/test_gpu.txt | tail -6
for s in 24 26; do
  timeout 150 build/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^$s --out $OUT/seg$s > $L/segcompare$s.txt 2>&1
  echo "segcompare 2^$s rc=$? $(el)s"; grep -E "PASS|MISS" $L/segcompare$s.txt | tail -2
done
(cd $OUT && tar czf segc.tgz seg24 seg26 && rm -rf seg24 seg26)
for tool in ${SAN:-}; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/$tool.txt 2>&1
  echo "$tool rc=$? $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/$tool.txt | tail -3
done
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
