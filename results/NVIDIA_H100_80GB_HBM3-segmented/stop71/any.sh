#!/usr/bin/env bash
# stop 71: one script for whichever GPU comes. On any GPU first stop 70's second-form stage A/B (lead/stage at
# 39ca170 against main69, ab_turns.py --win 1.01,0.97; stage3-cycle.sh's first step). Then:
#   - on an H100 with .devcarry/s70st3 carried and a win: device_run.sh tests segcompares segmented (stage3-cycle.sh);
#   - on an H200 with .devcarry/s68b carried: next-h200.sh's steps (main's test_gpu, both segmented compares,
#     memcheck over the stream path) with the time left.
# Slim the tree first; carry .devcarry/s71 and one of s70st3 (H100) or s68b (H200). Into $OUT/s71.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s71.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout 150 python3 scripts/harness/ab_turns.py \
  --trees main69,stage3 --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --win 1.01,0.97 --out $OUT/ab_stage3.txt > $OUT/ab_stage3_summary.txt 2>&1
echo "ab_stage3 rc=$? $(el)s"; cat $OUT/ab_stage3_summary.txt
win=0; grep -q '^verdict stage3: win 30 ratios' $OUT/ab_stage3_summary.txt && win=1
if [ -f .devcarry/s70st3/build.tar.xz ]; then
  [ $win = 1 ] || exit 0
  tar xJf .devcarry/s70st3/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
  export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
  SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
    timeout $(left) bash scripts/device_run.sh tests segcompares segmented
  echo "device_run.sh tests segcompares segmented rc=$? $(el)s"
elif [ -f .devcarry/s68b/build.tar.xz ]; then
  [[ $dev == *H200* ]] || { echo "main's binaries carried but not an H200: nothing more run"; exit 0; }
  tar xJf .devcarry/s68b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
  export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
  timeout $(left) bash scripts/device_run.sh tests segcompares
  echo "device_run.sh tests segcompares rc=$? $(el)s"
  if [ $(left) -gt 90 ]; then
    timeout $(left) compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu \
      --gtest_filter='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' > $OUT/sanitize-stream-memcheck.log 2>&1
    echo "compute-sanitizer memcheck (stream path) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/sanitize-stream-memcheck.log | tr '\n' ' ') $(grep 'ERROR SUMMARY' $OUT/sanitize-stream-memcheck.log | tail -1) $(el)s"
  fi
fi
