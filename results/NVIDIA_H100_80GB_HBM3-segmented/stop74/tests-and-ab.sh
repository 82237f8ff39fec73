#!/usr/bin/env bash
# stop 74: the whole test_gpu at 686416e (the kernels of main; build.tar.xz by pack_for_device.sh), then compute-
# sanitizer memcheck over the by-key stream path's tests, then stop73/warp-look-back-ab.sh's A/B with the time left.
# Carry .devcarry/s74; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s74.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
t=build/tests/test_gpu
timeout 240 $t > $OUT/test-gpu-all.log 2>&1
echo "test_gpu rc=$? $(el)s $(grep -E '^\[  (PASSED|FAILED|SKIPPED)|tests from .* ran' $OUT/test-gpu-all.log | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure' $OUT/test-gpu-all.log | head -8
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $t \
  --gtest_filter='LibraryReduceByKey.StreamPathAtEveryRunLength:LibraryReduceByKey.StreamPathWithShortRunLanesAtEveryRunLength' \
  > $OUT/memcheck-stream-path.log 2>&1
echo "memcheck rc=$? $(el)s $(grep -E '^\[  (PASSED|FAILED)' $OUT/memcheck-stream-path.log | tr '\n' ' ')$(grep 'ERROR SUMMARY' $OUT/memcheck-stream-path.log | tail -1)"
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
timeout $(left) python3 scripts/harness/ab_turns.py --trees main,lead --configs int,dbl,fmax,aff --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/warp-look-back-ab.txt
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] ' $OUT/warp-look-back-ab.txt | tail -32
