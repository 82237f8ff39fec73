#!/usr/bin/env bash
# stop 65 (prepared at stop 64, trees copied from 10fb2ea's include/):
#   main65   HEAD as it is
#   host65   long_run_stretch_from_host = true (4/8-byte pairs' long-run stretch passed from the host)
#   long12h  host65 + long_run_warp_stretch on for every pair (int32 keys with doubles: 8-byte spill)
# Carry: .devcarry/build.tar.xz (pack_for_device.sh build/reducelab build/tests/test_gpu_segmented_library) and this folder.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1
python3 scripts/harness/ab_turns.py --trees main65,host65 --configs int,fmax --sizes 24,26 \
  --binary "$d/bk_{config}_{tree}" --args '8,256,4096,-1 7' --timeout 60 --out $OUT/ab_host.txt > $OUT/ab_host_summary.txt 2>&1
echo "ab_host rc=$? $(el)s"; cat $OUT/ab_host_summary.txt
python3 scripts/harness/ab_turns.py --trees main65,long12h --configs dbl --sizes 24,26 \
  --binary "$d/bk_{config}_{tree}" --args '8,256,4096,-1 7' --timeout 60 --out $OUT/ab_long12.txt > $OUT/ab_long12_summary.txt 2>&1
echo "ab_long12 rc=$? $(el)s"; cat $OUT/ab_long12_summary.txt
