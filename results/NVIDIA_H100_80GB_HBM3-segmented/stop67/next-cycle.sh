#!/usr/bin/env bash
# stop 68 (prepared at stop 67), in BUDGET seconds (default 570); carry .devcarry/s68 (this script as cycle.sh, the
# harness binaries, xz'd) and .devcarry/s67b (the CLI and test_gpu_segmented_library at 7958858, whose kernels are
# HEAD's: later commits changed comments and scripts only); with the tree about 66.2 MB of the 67.1 MB the tool carries.
#   On an H200, first: the segmented library's tests and both committed segmented compares (the H200's are b9d9619's,
#   stop 61, before stops 62-67 changed reduce_by_key's stream path).
#   Then, on any GPU, two A/Bs against main68 (include/ at a70c3eb) for int, fmax and dbl (the harness's plus over
#   int32, maximum over float, plus over double; the harness binaries stripped and xz -9e'd to fit the carry):
#   - up (next-up.diff): one more resident block an SM for the stream kernel (__launch_bounds__ minimum 5 for 4-byte
#     pairs: 48 registers, 44-52 bytes spilled; 4 for 8-byte values: 64 registers, 44 bytes spilled; ptxas_*.txt).
#     Stop 67 measured that 3 blocks in place of 4 cost 4-9 % at runs of 8-32 (by-key-short-lanes-ahead.txt), so one
#     more may give some back, if the spills cost less;
#   - s7 (next-s7.diff): warps' stretches of stash runs x 7 items in place of x 6 (runs of 8 still fit the stash), so
#     that 2^26 int32 keys take 4 rounds of the grid in place of 5 and 2^24 one in place of 2: one tile's join,
#     look-back and write-out fewer per block (barrier stalls are 15-16 % of the kernel's at runs of 8,
#     ../NVIDIA_H100_80GB_HBM3-segmented-n26/ncu-by-key-7958858/by-key-sass-runs8.txt).
#   On an H100, last: compute-sanitizer racecheck over the one stream-path test stop 67 could not finish under it
#   (StreamPathGivesTheSameBitsEveryRun, 24 M keys), with the time left.
# Everything into $OUT/stop68.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68.tgz
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
t=build/tests/test_gpu_segmented_library
[ -f .devcarry/s67b/build.tar.xz ] && tar xJf .devcarry/s67b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
if [[ $dev == *H200* && -x $t ]]; then
  timeout $(left) $t --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
fi
if [ $(left) -gt 90 ]; then
  (cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
  CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout $(( $(left) < 200 ? $(left) : 200 )) python3 scripts/harness/ab_turns.py \
    --trees main68,up,s7 --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
    --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_up.txt > $OUT/ab_up_summary.txt 2>&1
  echo "ab_up rc=$? $(el)s"; cat $OUT/ab_up_summary.txt; grep WRONG $OUT/ab_up.txt | head -5 || true
fi
if [[ $dev != *H200* && -x $t && $(left) -gt 120 ]]; then
  timeout $(left) compute-sanitizer --tool racecheck --error-exitcode 9 $t \
    --gtest_filter='LibraryReduceByKey.StreamPathGivesTheSameBitsEveryRun' > $OUT/sanitize-same-bits-racecheck.log 2>&1
  echo "compute-sanitizer racecheck (same bits) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-same-bits-racecheck.log | tr '\n' ' ') $(grep 'RACECHECK SUMMARY' $OUT/sanitize-same-bits-racecheck.log | tail -1) $(el)s"
fi
