#!/usr/bin/env bash
# stop 67 (prepared at stop 66), in BUDGET seconds (default 570); everything packed into $OUT/stop67.tgz.
#   default (any GPU; carry .devcarry/s67 and .devcarry/s66pf):
#     1. nc A/B: reduce_by_key's stream path for non-commutative functors (nc.diff, branch lead/by-key-stream-in-order,
#        d908d78) against main (main67 = include/ at 4a31f56, where affine maps take the one-pass kernel), affine maps
#        (scripts/harness/by_key_library_ab.cu -DHARNESS_AFFINE), 2^26 and 2^24, runs of 8, 32, 256, 4096, 1..64;
#     2. the branch's segmented library tests (test_gpu_segmented_library at d908d78: affine maps through the entry
#        and on the stream path alone);
#     3. the L2-prefetch A/B (.devcarry/s66pf/ab.sh: main66 against pf1 and pf2);
#     4. compute-sanitizer memcheck over the branch's stream-path tests, while time remains.
#   MODE=h200 (carry .devcarry/s67 and .devcarry/cli.tar.xz, the CLI at c6a8949): on an H200 the segmented compares
#     (2^26, then 2^24; the H200's are b9d9619's, stop 61); on an H100 Nsight Compute on the stream kernel at runs of 8
#     and 256 (plus over int32, 2^26; stop 62's profile predates the 8-item lanes and the longer tiles).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-570}
final=$OUT; export OUT=$final/w; mkdir -p $OUT
trap 'tar czf $final/stop67.tgz -C $final w && rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
left() { echo $(( budget - $(el) - 10 )); }
compares() {
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
}
profile() {
  for L in 8 256; do
    [ $(left) -lt 60 ] && { echo "ncu runs of $L: not run"; continue; }
    timeout $(left) ncu --kernel-name-base mangled --kernel-name 'regex:_ZN9reducelab9segmented7kernels.*stream_runs' \
      --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
      --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      build/reducelab segmented compare --variants reducelab::reduce_by_key --ops plus --types int32 \
      --segments uniform:$L --sizes 2^26 --samples 5 > $OUT/ncu-by-key-runs$L.txt 2>&1
    echo "ncu runs of $L rc=$? $(grep -E 'Duration|DRAM Throughput|Issued Warp Per Scheduler' $OUT/ncu-by-key-runs$L.txt | tr -s ' ' | tr '\n' ';') $(el)s"
  done
}
nc_ab() {
  (cd $d && for f in bk_aff_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
  CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout $(left) python3 scripts/harness/ab_turns.py --trees main67,nc \
    --configs aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" --args '8,32,256,4096,-1 7' --timeout 60 \
    --out $OUT/ab_nc.txt > $OUT/ab_nc_summary.txt 2>&1
  echo "ab_nc rc=$? $(el)s"; cat $OUT/ab_nc_summary.txt; grep WRONG $OUT/ab_nc.txt
}
branch_tests() {
  tar xJf $d/segtests-d908d78.tar.xz && echo "test binary: $(cat build/COMMIT)"
  export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
  local t=build/tests/test_gpu_segmented_library
  timeout $(left) $t --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
  grep -E '^\[  FAILED' $OUT/segmented-tests.log | head
}
pf_ab() {
  [ $(left) -lt 60 ] && { echo "pf A/B: not run"; return; }
  local o=$OUT; OUT=$o/pf TREES=main66,pf1,pf2 BUDGET=$(left) bash .devcarry/s66pf/ab.sh; OUT=$o
  tar xzf $o/pf/pf.tgz -C $o/pf && rm $o/pf/pf.tgz
  echo "pf A/B $(el)s"
}
sanitize() {
  [ $(left) -lt 60 ] && { echo "memcheck: not run"; return; }
  local f='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*'
  timeout $(left) compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu_segmented_library \
    --gtest_filter="$f" > $OUT/sanitize-stream-memcheck.log 2>&1
  echo "compute-sanitizer memcheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-memcheck.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-memcheck.log | tail -1) $(el)s"
}
if [ "${MODE:-}" = h200 ]; then
  tar xJf .devcarry/cli.tar.xz && echo "binaries: $(cat build/COMMIT)"
  if [[ $dev == *H200* ]]; then compares; else profile; fi
else
  nc_ab; branch_tests; pf_ab; sanitize
fi
