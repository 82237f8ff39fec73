#!/usr/bin/env bash
# stop 77: same-run A/B of the by-key stream kernel's stash in dynamic shared memory, as large as the resident blocks
# allow. ob = main with stop76/one-barrier.patch; obd = ob with stop77/dynamic-stash.patch: 54 KiB for pairs of up to
# 8 bytes (4 blocks an SM), 73 KiB for larger pairs (3 blocks an SM), in place of 46 KiB static (sm_90 gives an SM
# 228 KiB, 1 KiB of it reserved per block); tiles 1.17x (1.59x) as long. s46 = main (HEAD 3994cd2).
# Library call alone (scripts/harness/by_key_library_ab.cu, exact host check): plus over int32 and double, maximum over
# float, affine maps; 2^26 and 2^24; runs of 8, 32, 256 and 1..64; ab_turns.py's turns. ptxas sm_90: no spills.
# About 75 s. Carry .devcarry/s77; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s77a.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER timeout $(left) python3 scripts/harness/ab_turns.py --trees s46,ob,obd \
  --configs int,dbl,fmax,aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 \
  --out $OUT/stash-dyn-ab.txt > $OUT/stash-dyn-summary.txt 2>&1
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/stash-dyn-summary.txt | head -40
echo "WRONG lines in the raw log: $(grep -c WRONG $OUT/stash-dyn-ab.txt)"
