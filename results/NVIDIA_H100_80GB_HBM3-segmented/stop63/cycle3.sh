#!/usr/bin/env bash
# stop 63, last H100 call: (1) the library call behind a held stream, as the compares time it (HARNESS_HOLD=1):
# main = 5bec947, final = 22c6117 (the one-pass kernel released at the stream kernel's start), late = the packed commit
# (released after the sample's choice); (2) build the packed commit; its by-key tests; the segmented compare at 2^24;
# memcheck and synccheck over the stream path's tests.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
L=$OUT/logs; mkdir -p $L
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER python3 scripts/harness/ab_turns.py --trees main,final,late --configs int,dbl --sizes 24,26 \
  --binary "$d/bk_{config}_{tree}" --args '1,8,256 7' --timeout 60 --out $OUT/ab4_held.txt > $OUT/ab4_held_summary.txt 2>&1
echo "ab4 held rc=$? $(el)s"; cat $OUT/ab4_held_summary.txt
TARGETS="reducelab_cli test_gpu" OUT=$L timeout 330 bash scripts/device_build.sh; echo "build rc=$? $(el)s"
echo "build: $(cat build/COMMIT)"
export REDUCELAB_COMMIT=$(cat build/COMMIT)
timeout 60 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $L/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/bykey-tests.txt | tail -8
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
timeout 90 build/reducelab segmented compare --variants "$V" --samples 9 --sizes 2^24 --out $OUT/seg24 > $L/segcompare24.txt 2>&1
echo "segcompare 2^24 rc=$? $(el)s"; grep -E "PASS, " $OUT/seg24/segmented.md | head -1
grep -A0 "reduce_by_key keys1" $L/segcompare24.txt | head -8
(cd $OUT && tar czf segc.tgz seg24 && rm -rf seg24)
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*'
for tool in memcheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/$tool.txt 2>&1
  echo "$tool rc=$? $(el)s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/$tool.txt | tail -2
done
(cd "$OUT" && tar czf logs3.tgz logs && rm -rf logs)
