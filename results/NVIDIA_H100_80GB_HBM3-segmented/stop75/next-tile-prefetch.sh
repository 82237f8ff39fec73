#!/usr/bin/env bash
# stop 75, on an H100. (1) stop74/tile-wait.sh: what a wait at each tile boundary costs the read/write mix at the stream
# kernel's shape (2^26, runs of 8; binary: read_write_mix_tiled.xz, built at 284ee04). (2) Same-run A/B of an L2 bulk
# prefetch at the tile boundary (thread/prefetch_l2.cuh, cp.async.bulk.prefetch): once a warp has streamed its stretch,
# its lane 0 asks L2 for the first 512 (pf512) or 1536 (pf1536) items of its stretch in the block's next tile, keys
# and values, so that HBM has work while the block joins, looks back and stores. Against main (c91632d's binaries from
# .devcarry/s74e, the same kernels as HEAD 1764d47). Library call alone (scripts/harness/by_key_library_ab.cu): plus over
# int32 and double, maximum over float, affine maps; 2^26 and 2^24; runs of 8, 32, 256 and 1..64; ab_turns.py's turns.
# Built here with stop73/warp-look-back-ab.sh's command plus -DRL_NEXT_PF=512|1536 (ptxas sm_90: int32 pairs 64
# registers, no spills; int32 keys with doubles 80 registers, 16 bytes spilled). Carry .devcarry/s75; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s75.tgz
(cd $d && for f in bk_*.xz read_write_mix_tiled.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
timeout $(left) python3 scripts/harness/ab_turns.py --trees main,pf512,pf1536 --configs int,dbl,fmax,aff --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/next-tile-prefetch-ab.txt \
  > $OUT/next-tile-prefetch-summary.txt 2>&1
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/next-tile-prefetch-summary.txt | head -40
grep -c WRONG $OUT/next-tile-prefetch-ab.txt
export HARNESS_LOG2N=26
run() {  # $1 label, $2 cap, $3 steps (0: untiled), $4 wait ns, $5 row (int|dbl)
  local f=$OUT/$1-$5-pass$pass.txt
  HARNESS_MIX_BLOCKS_PER_SM=$2 HARNESS_MIX_TILE_STEPS=$3 HARNESS_MIX_TILE_WAIT_NS=$4 timeout 60 $d/read_write_mix_tiled 8 9 > $f 2>&1
  echo "$(printf '%-9s' $1) pass $pass rc=$? $(grep -E "^(mix|read) +$5 " $f | tr -s ' ' | tr '\n' '|') $(grep -c WRONG $f) wrong"
}
for pass in 1 2; do
  [ $(left) -lt 25 ] && break
  for w in untiled 0 2000 4000 6000 8000; do
    if [ $w = untiled ]; then run untiled 4 0 0 int; run untiled 3 0 0 dbl
    else run wait$w 4 17 $w int; run wait$w 3 11 $w dbl; fi
  done
done
echo "done $(el)s"
