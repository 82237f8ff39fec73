#!/usr/bin/env bash
# stop 70, second form: branch lead/stage at its second commit (the stage takes each chunk as it lies in memory, each
# copy request of the warp 512 contiguous bytes; stage3.diff) against main, as stop70/stage-cycle.sh measured its first
# (0.54-0.64x where the stage works). A/B, verdict, and on a win with .devcarry/s70st3 carried device_run.sh's tests,
# compares and segmented steps (its sanitizers over the stream path's tests). Slim the tree first; carry
# .devcarry/s70b (and .devcarry/s70st3). Into $OUT/stage3cycle.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stage3cycle.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout 150 python3 scripts/harness/ab_turns.py \
  --trees main69,stage3 --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --win 1.01,0.97 --out $OUT/ab_stage3.txt > $OUT/ab_stage3_summary.txt 2>&1
echo "ab_stage3 rc=$? $(el)s"; cat $OUT/ab_stage3_summary.txt
# a win: no WRONG or failed line, the geometric mean of the 30 ratios >= 1.01, none below 0.97 (ab_turns.py --win)
grep -q '^verdict stage3: win 30 ratios' $OUT/ab_stage3_summary.txt || exit 0
[ -f .devcarry/s70st3/build.tar.xz ] || { echo "win, but the branch's binaries were not carried: tests, compares and sanitizers next call"; exit 0; }
tar xJf .devcarry/s70st3/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
# the whole test_gpu, both compares, then the segmented step: issue 13's tests and the sanitizers over the stream path
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh tests segcompares segmented
echo "device_run.sh tests segcompares segmented rc=$? $(el)s"
