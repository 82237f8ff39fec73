#!/usr/bin/env bash
# stop 66 (prepared at stop 65): the A/B of the stream path's scan leaving early, then the compares at c6a8949 and the
# by-key tests, in BUDGET seconds (default 570).
#   main66    include/ at 3a0c242 (c6a8949's code)
#   scanexit  agent/run_stretch.cuh's segmented warp scan leaves once no lane's piece is still open (scanexit.diff;
#             results bit for bit the same: a CPU model of the scan over 20000 head patterns agreed)
# Carry: .devcarry/s66 and .devcarry/build.tar.xz (pack_for_device.sh build/reducelab build/tests/test_gpu_segmented_library
# at c6a8949). Harness binaries built with the harness of 3a0c242 (ptxas: int/fmax 64 registers, no spill, both trees;
# dbl 80 registers, 8 -> 12 bytes spilled).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-570}
# The device tool brings back only so many files (stop 65: the ninth was left out, "(count)"): everything goes to
# $OUT/w, packed into $OUT/stop66.tgz at the end.
final=$OUT; export OUT=$final/w; mkdir -p $OUT
trap 'tar czf $final/stop66.tgz -C $final w && rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 python3 scripts/harness/ab_turns.py --trees main66,scanexit \
  --configs int,fmax,dbl --sizes 24,26 --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 7' --timeout 60 \
  --out $OUT/ab_scan.txt > $OUT/ab_scan_summary.txt 2>&1
echo "ab_scan rc=$? $(el)s"; cat $OUT/ab_scan_summary.txt
tar xJf .devcarry/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
SEG_ARGS="--sizes 2^26" SEG_OUT=results/$dev-segmented-n26 timeout $(( budget - $(el) )) bash scripts/device_run.sh segcompare
echo "segcompare 2^26 rc=$? $(el)s"; cp $OUT/summary.txt $OUT/summary-n26.txt; cp $OUT/segmented-compare.txt $OUT/segmented-compare-n26.txt
grep "segmented compare" $OUT/summary-n26.txt
timeout $(( budget - $(el) )) bash scripts/device_run.sh segcompare
echo "segcompare 2^24 rc=$? $(el)s"; grep "segmented compare" $OUT/summary.txt
left=$(( budget - $(el) ))
if [ $left -gt 20 ]; then
  LD_LIBRARY_PATH=$PWD/build/lib timeout $left build/tests/test_gpu_segmented_library \
    --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(grep -c '^\[       OK' $OUT/segmented-tests.log) OK $(el)s"
fi
