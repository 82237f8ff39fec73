#!/usr/bin/env bash
# stop 67, fourth call (carry .devcarry/s67p: this script and the harness binaries, xz'd). A/B of the stream walk's
# short-run lanes (8 items a lane, one chunk a group) with each chunk's loads issued before the chunk before it is
# worked (branch lead/by-key-short-lanes-ahead, ahead.diff): Nsight Compute at 7958858 (runs of 8) put 34-38 % of the
# kernel's stall samples on the first use of a chunk's keys. The second chunk of registers spills 276 bytes at 64
# registers (4 blocks an SM), so the branch builds every pair at 3 blocks (80 registers): int and fmax spill nothing,
# dbl 144 bytes (8 at main), aff 172.
# Trees: main68 = include/ at a70c3eb; m3 = main68 at 3 blocks an SM (dbl, aff: main68 itself, already at 3);
# ahead = the branch. Harness scripts/harness/by_key_library_ab.cu by ab_turns.py (two passes, the second in reverse
# order), held stream. Everything into $OUT/stop67e.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop67e.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout $(( $(left) < 200 ? $(left) : 200 )) python3 scripts/harness/ab_turns.py \
  --trees main68,m3,ahead --configs int,fmax,dbl,aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_pipe.txt > $OUT/ab_pipe_summary.txt 2>&1
echo "ab_pipe rc=$? $(el)s"; cat $OUT/ab_pipe_summary.txt; grep WRONG $OUT/ab_pipe.txt | head -5
# Then, while time remains, the branch's segmented library tests (test_gpu_segmented_library at 4619767).
if [ -f $d/segtests-4619767.tar.xz ] && [ $(left) -gt 60 ]; then
  tar xJf $d/segtests-4619767.tar.xz && echo "test binary: $(cat build/COMMIT)"
  LD_LIBRARY_PATH=$PWD/build/lib timeout $(left) build/tests/test_gpu_segmented_library \
    --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
  grep -E '^\[  FAILED' $OUT/segmented-tests.log | head || true
fi
