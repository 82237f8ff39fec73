#!/usr/bin/env bash
# stop 68: an A/B of reduce_by_key's stream path against main69 (include/ at 4a8ee58): lh (lh.diff) has a chunk's
# segmented warp scan test, at each of its 5 steps, whether the lane's window holds a head by one comparison with the
# last lane holding a head up to it (found once, __clz of the chunk's ballot) instead of building the window's mask
# (stream kernel's SASS: 8440 -> 8248 instructions for int, 9120 -> 8872 fmax, 6336 -> 6192 dbl); int, fmax and dbl
# at 2^26 and 2^24.
# Prepared at stop 68 (no device time was left to run it); bk_{int,fmax,dbl}_{main69,lh}.xz and their ptxas_*.txt are in
# .devcarry/s68c, and branch lead/by-key-last-head holds the change on main. Carry .devcarry/s68c (this script, the
# harness binaries stripped and xz'd, their ptxas). Into $OUT/stop68h.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68h.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout $(left) python3 scripts/harness/ab_turns.py \
  --trees main69,lh --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_lh.txt > $OUT/ab_lh_summary.txt 2>&1
echo "ab_lh rc=$? $(el)s"; cat $OUT/ab_lh_summary.txt; grep WRONG $OUT/ab_lh.txt | head -5 || true
