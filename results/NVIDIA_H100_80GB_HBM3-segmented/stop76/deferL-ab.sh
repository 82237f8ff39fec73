#!/usr/bin/env bash
# stop 75, prepared for the next stop: same-run A/B of the long-run stretch under the two stashes. defer = HEAD's
# kernels (65231dc's binaries; long_run_warp_stretch = stash_runs x short_run_mean / 2, half main's since the stash
# was split); deferL = the same with stash_runs x short_run_mean (the items a warp streamed per long-run tile before
# stop 75); s46 = defer with stash_bytes 46 KiB in place of 40 (tiles 1.15x as long; 47.6-47.8 KB of static shared
# memory a block, under the 48 KiB a static allocation may take; 2^24 doubles 4 rounds in place of 5, 2^26 int32 pairs
# 7 in place of 8, worked out from the policy). Library call alone (scripts/harness/by_key_library_ab.cu): plus over int32 and double, maximum over float,
# affine maps; 2^26 and 2^24; runs of 8, 32, 256 and 1..64 (only 256 takes the long-run lanes); ab_turns.py's turns.
# Built at stop 75 with stop73/warp-look-back-ab.sh's command (ptxas sm_90: no spills). About 70 s. Carry
# .devcarry/s76L; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s76L.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER timeout $(left) python3 scripts/harness/ab_turns.py --trees defer,deferL,s46 \
  --configs int,dbl,fmax,aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 \
  --out $OUT/deferL-ab.txt > $OUT/deferL-summary.txt 2>&1
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/deferL-summary.txt | head -40
