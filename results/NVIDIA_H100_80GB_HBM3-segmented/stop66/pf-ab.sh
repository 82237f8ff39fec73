#!/usr/bin/env bash
# stop 66: A/B of an L2 prefetch in reduce_by_key's stream walk (pf.diff against main66 = c6a8949's code): each warp asks
# L2 for its chunk group RL_PF_DIST groups ahead (1, 2, 4; trees pf1 pf2 pf4) while it works on this one.
# Carry .devcarry/s66pf (the harness binaries built per tree and distance, xz'd, with main66's from .devcarry/s66).
# Output packed into $OUT/pf.tgz. Committed as results/NVIDIA_H100_80GB_HBM3-segmented/stop66/pf-ab.sh.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
final=$OUT; export OUT=$final/w; mkdir -p $OUT
trap 'tar czf $final/pf.tgz -C $final w && rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout ${BUDGET:-200} python3 scripts/harness/ab_turns.py --trees ${TREES:-main66,pf1,pf2,pf4} \
  --configs int,fmax,dbl --sizes ${SIZES:-26,24} --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 7' --timeout 60 \
  --out $OUT/ab_pf.txt > $OUT/ab_pf_summary.txt 2>&1
echo "ab_pf rc=$? $(el)s"; cat $OUT/ab_pf_summary.txt
