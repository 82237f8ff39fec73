#!/usr/bin/env bash
# stop 68: an A/B of reduce_by_key's stream path against main69 (include/ at 4a8ee58, the x 7 stretches): pfl1
# (pfl1.diff, built with -DRL_PF_DIST=1) asks L1, not L2 as stop 66's pf.diff did, for the next chunk group's lines
# while a warp works this one (prefetch.global.L1: CCTL.E.PF1 in the SASS); int, fmax and dbl at 2^26 and 2^24.
# Carry .devcarry/s68c (this script, the harness binaries stripped and xz'd, their ptxas). Into $OUT/stop68c.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68c.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout $(left) python3 scripts/harness/ab_turns.py \
  --trees main69,pfl1 --configs int,fmax,dbl --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_pfl1.txt > $OUT/ab_pfl1_summary.txt 2>&1
echo "ab_pfl1 rc=$? $(el)s"; cat $OUT/ab_pfl1_summary.txt; grep WRONG $OUT/ab_pfl1.txt | head -5 || true
