#!/usr/bin/env bash
# stop 61, last call: build main at the packed commit (min_n 2^24), the by-key tests, compute-sanitizer memcheck over
# the stream path's tests, the harness (b9d9619 / stream path off / the new tree) at 2^22-2^24, then the whole test_gpu.
set -uo pipefail
cd "$(dirname "$0")/../.."
L=$OUT/logs; mkdir -p $L
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TARGETS="reducelab_cli test_gpu" OUT=$L timeout 330 bash scripts/device_build.sh; echo "build rc=$? $(el)s"; echo "build: $(cat build/COMMIT)"
timeout 90 build/tests/test_gpu --gtest_filter='LibraryReduceByKey.*' > $L/bykey-tests.txt 2>&1; echo "bykey tests rc=$? $(el)s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED \]" $L/bykey-tests.txt | tail -6
SP='LibraryReduceByKey.StreamPath*:LibraryReduceByKey.EntrySends*:LibraryReduceByKey.TheKeysSample*'
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu --gtest_filter="$SP" > $L/memcheck.txt 2>&1
echo "memcheck rc=$? $(el)s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/memcheck.txt | tail -2
cd .devcarry/s61e
for n in 22 23 24; do for b in main off new; do
  echo "== $n $b" >> $L/harness.txt; HARNESS_LOG2N=$n timeout 30 ./bk_int_$b 1,8,256,4096 5 >> $L/harness.txt 2>&1
done; done
grep -E "^==|^L=" $L/harness.txt | sed -E 's/\| full_2.*\| library/| library/; s/\| segmented.*//'
cd ../..; echo "harness $(el)s"
left=$(( 585 - $(el) )); if [ $left -gt 40 ]; then timeout $left build/tests/test_gpu > $L/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(el)s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $L/test_gpu.txt; fi
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
