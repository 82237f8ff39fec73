#!/usr/bin/env bash
# stop 64 on the H100: build the packed commit on the device (unless that build is already there), then
# PART=1: same-run A/Bs of the library call (by_key_library_ab.cu, one binary per tree and configuration, trees copies
#         of include/ at the packed commit's parent c49b891, whose entry's kernels compile byte for byte the same):
#   main   c49b891 as it is
#   long   by_key_stream_policy::long_run_warp_stretch = stash_runs x short_run_mean / 2 (whole chunk groups)
#   claim  by_key_stream_policy::one_pass_claims_ahead = true
#   off    the one-pass kernel alone (min_n 2^40)
#         then the by-key tests and compute-sanitizer memcheck/synccheck over the stream path's tests
# PART=2: the whole test_gpu, racecheck over the stream path's tests, the committed segmented compares at 2^24, 2^26.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
L=$OUT/logs; mkdir -p $L
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*:LibraryReduceByKey.NaNKeys*:LibraryReduceByKey.OnePassKernelClaiming*'
V='reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'
if [ "${PART:-1}" = 1 ]; then
  (cd $d && for f in *.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
  export CUDA_MODULE_LOADING=EAGER
  HARNESS_HOLD=1 python3 scripts/harness/ab_turns.py --trees main,long --configs int,dbl,fmax --sizes 24,26 \
    --binary "$d/bk_{config}_{tree}" --args '8,256,4096,-1 7' --timeout 60 --out $OUT/ab_long.txt > $OUT/ab_long_summary.txt 2>&1
  echo "ab_long (held) rc=$? $(el)s"; cat $OUT/ab_long_summary.txt
  HARNESS_HOLD=1 python3 scripts/harness/ab_turns.py --trees main,claim,off --configs int,dbl --sizes 24,26 \
    --binary "$d/bk_{config}_{tree}" --args '1,-1 9' --timeout 60 --out $OUT/ab_claim_held.txt > $OUT/ab_claim_held_summary.txt 2>&1
  echo "ab_claim (held) rc=$? $(el)s"; cat $OUT/ab_claim_held_summary.txt
  python3 scripts/harness/ab_turns.py --trees main,claim,off --configs int,fmax --sizes 24 \
    --binary "$d/bk_{config}_{tree}" --args '1,-1 9' --timeout 60 --out $OUT/ab_claim.txt > $OUT/ab_claim_summary.txt 2>&1
  echo "ab_claim (unheld) rc=$? $(el)s"; cat $OUT/ab_claim_summary.txt
  unset CUDA_MODULE_LOADING
fi
if [ "$(cat build/COMMIT 2>/dev/null)" != "$(cat .devcarry/COMMIT)" ] || [ ! -x build/tests/test_gpu ]; then
  TARGETS="reducelab_cli test_gpu" OUT=$L timeout 330 bash scripts/device_build.sh; echo "build rc=$? $(el)s"
else echo "build kept from the last call"; fi
echo "build: $(cat build/COMMIT)"
export REDUCELAB_COMMIT=$(cat build/COMMIT)
case "${PART:-1}" in
1)
  timeout 90 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $L/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]|^\[ +OK \] .*(StreamPathWithLongRun|OnePassKernelClaiming)" $L/bykey-tests.txt | tail -10
  for tool in memcheck synccheck; do
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
  if [ "${RACE:-1}" = 1 ]; then
    timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/racecheck.txt 2>&1
    echo "racecheck rc=$? $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/racecheck.txt | tail -3
  fi
  ;;
esac
(cd "$OUT" && tar czf logs${PART:-1}.tgz logs && rm -rf logs)
