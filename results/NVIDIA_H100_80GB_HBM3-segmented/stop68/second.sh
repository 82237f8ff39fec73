#!/usr/bin/env bash
# stop 68, second call, in BUDGET seconds, on whichever GPU the call gets:
#   1. an A/B of reduce_by_key's stream path against main69 (include/ at 4a8ee58, the x 7 stretches): pfl1
#      (pfl1.diff) asks L1, not L2 as stop 66's pf.diff did, for the next chunk group's lines while a warp works this
#      one (prefetch.global.L1, CCTL.E.PF1 in the SASS), int, fmax and dbl at 2^26 and 2^24;
#   2. the whole test_gpu under CTest at 4a8ee58 (the plain read's fill now waited for), then GpuPlainRead's test 50
#      times over;
#   3. on an H200, both committed segmented compares (its are b9d9619's, stop 61).
# Carry .devcarry/s68b (build.tar.xz: the CLI, test_gpu and concurrent_hang at 4a8ee58; test_gpu_tests.cmake; as
# compares.sh) and .devcarry/s68c (this script, the harness binaries stripped and xz'd, their ptxas).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68c.tgz
b=.devcarry/s68b
tar xJf $b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout 150 python3 scripts/harness/ab_turns.py \
  --trees main69,pfl1 --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_pfl1.txt > $OUT/ab_pfl1_summary.txt 2>&1
echo "ab_pfl1 rc=$? $(el)s"; cat $OUT/ab_pfl1_summary.txt; grep WRONG $OUT/ab_pfl1.txt | head -5 || true
[ -e /tmp/b63 ] || ln -s "$PWD" /tmp/b63
cp $b/test_gpu_tests.cmake "build/tests/test_gpu[1]_tests.cmake"
echo 'include("/tmp/b63/build/tests/test_gpu[1]_tests.cmake")' > build/tests/CTestTestfile.cmake
(cd build/tests && timeout $(( $(left) < 300 ? $(left) : 300 )) ctest --output-on-failure --timeout 600 --parallel 8) > $OUT/ctest.log 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed|Total Test time' $OUT/ctest.log | tr '\n' ' ') $(el)s"
grep -E '\*\*\*Skipped|\*\*\*Failed|Not Run' $OUT/ctest.log | head -12
timeout 120 build/tests/test_gpu --gtest_filter='GpuPlainRead.*' --gtest_repeat=50 > $OUT/plain-read-repeat.log 2>&1
echo "plain read x50 rc=$? passed $(grep -c '^\[  PASSED' $OUT/plain-read-repeat.log) failed $(grep -c '^\[  FAILED  \] 1 test' $OUT/plain-read-repeat.log) $(el)s"
if [[ $dev == *H200* && $(left) -gt 150 ]]; then
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
  grep -h "segmented compare" $OUT/summary*.txt 2>/dev/null
fi
