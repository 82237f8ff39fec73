#!/usr/bin/env bash
# stop 69: one call that measures branch lead/lh-on-main (0b706fa: the segmented warp scan's one-comparison window
# test, lh.diff) against main (include/ at 4a8ee58, SASS equal to HEAD's) and, only if it wins, takes the records a
# kernel change needs with its binaries (the CLI, test_gpu and concurrent_hang built at 0b706fa, carried in
# .devcarry/s69lh):
#   1. the A/B (as stop68/lh-ab.sh: int, fmax, dbl at 2^26 and 2^24, runs of 8, 32, 256, 4096 and 1..64, 7 turns);
#   2. a win is: no WRONG line, the geometric mean of the 30 ratios >= 1.01 and none below 0.97;
#   3. then the whole test_gpu under CTest, both segmented compares, and the stream path's memcheck and racecheck.
# Run `bash scripts/device_tree.sh slim` here first (and `restore` after); carry .devcarry/s69 and .devcarry/s69lh.
# Everything into $OUT/lhcycle.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh lhcycle.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout 120 python3 scripts/harness/ab_turns.py \
  --trees main69,lh --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_lh.txt > $OUT/ab_lh_summary.txt 2>&1
echo "ab_lh rc=$? $(el)s"; cat $OUT/ab_lh_summary.txt; grep WRONG $OUT/ab_lh.txt | head -5
verdict=$(grep -o '[0-9.]*x$' $OUT/ab_lh_summary.txt | tr -d x | awk '
  { n++; s += log($1); if ($1 < 0.97) low++ } END { g = n ? exp(s / n) : 0;
    printf "%s %d ratios, geometric mean %.3f, %d below 0.97\n", (n == 30 && g >= 1.01 && !low) ? "win" : "no-win", n, g, low }')
grep -q WRONG $OUT/ab_lh.txt && verdict="no-win (a WRONG line)"
echo "verdict: $verdict"
[[ $verdict == win* ]] || exit 0
tar xJf .devcarry/s69lh/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
timeout $(left) bash scripts/device_run.sh tests segcompares
echo "device_run.sh tests segcompares rc=$? $(el)s"
for tool in memcheck racecheck; do
  [ $(left) -gt 60 ] || break
  timeout $(left) compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-$tool.log 2>&1
  echo "compute-sanitizer $tool (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-$tool.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize-stream-$tool.log | tail -1) $(el)s"
done
