#!/usr/bin/env bash
# stop 70: one call that measures branch lead/stage (7f4deec: the short-run lanes copy each next chunk into a warp's
# stage in dynamic shared memory with cp.async before working the one before; the stash 39 KiB; stage.diff) against
# main (include/ at 4a8ee58, main's kernels) and, only if it wins, takes the records a kernel change needs with its
# binaries (the CLI, test_gpu and concurrent_hang built at 7f4deec, carried in .devcarry/s70st):
#   1. the A/B (int, fmax, dbl at 2^26 and 2^24, runs of 8, 32, 256, 4096 and 1..64, 7 turns);
#   2. a win is: no WRONG line, the geometric mean of the 30 ratios >= 1.01 and none below 0.97;
#   3. then the whole test_gpu under CTest, both segmented compares, and the stream path's memcheck and racecheck.
# Run `bash scripts/device_tree.sh slim` here first (and `restore` after); carry .devcarry/s70 and .devcarry/s70st.
# Everything into $OUT/stagecycle.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stagecycle.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout 150 python3 scripts/harness/ab_turns.py \
  --trees main69,stage --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_stage.txt > $OUT/ab_stage_summary.txt 2>&1
echo "ab_stage rc=$? $(el)s"; cat $OUT/ab_stage_summary.txt; grep WRONG $OUT/ab_stage.txt | head -5
verdict=$(grep -o '[0-9.]*x$' $OUT/ab_stage_summary.txt | tr -d x | awk '
  { n++; s += log($1); if ($1 < 0.97) low++ } END { g = n ? exp(s / n) : 0;
    printf "%s %d ratios, geometric mean %.3f, %d below 0.97\n", (n == 30 && g >= 1.01 && !low) ? "win" : "no-win", n, g, low }')
grep -q WRONG $OUT/ab_stage.txt && verdict="no-win (a WRONG line)"
echo "verdict: $verdict"
[[ $verdict == win* ]] || exit 0
[ -f .devcarry/s70st/build.tar.xz ] || { echo "win, but the branch's binaries were not carried: tests, compares and sanitizers next call"; exit 0; }
tar xJf .devcarry/s70st/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
timeout $(left) bash scripts/device_run.sh tests segcompares
echo "device_run.sh tests segcompares rc=$? $(el)s"
for tool in memcheck racecheck; do
  [ $(left) -gt 60 ] || break
  timeout $(left) compute-sanitizer --tool $tool --error-exitcode 9 build/tests/test_gpu \
    --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-$tool.log 2>&1
  echo "compute-sanitizer $tool (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-$tool.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize-stream-$tool.log | tail -1) $(el)s"
done
