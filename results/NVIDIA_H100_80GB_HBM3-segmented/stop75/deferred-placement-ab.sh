#!/usr/bin/env bash
# stop 75 (not run alone: defer-cycle2.sh ran its A/B, without deferL and fmax), same-run A/B of the by-key stream
# kernel with deferred placement (stop75/deferred-placement.patch): two
# stashes of half the size (tiles half as long), a block's tile t streams into one while its tile before, t - gridDim.x,
# waits in the other; that tile's look-backs and stores come after t has streamed and published, so the tiles before it
# have long published and the look-backs find what they need without waiting. Two block barriers a tile in place of
# four. defer: the patch; deferL: the patch with the long-run stretch twice as long (stash_runs x short_run_mean, the
# same items as main's); dsum: defer, with the runs before the waiting tile summed by the whole block from the block's
# own previous tile (gridDim.x earlier) and the run counts of the tiles between (no walk, no count prefixes; the carry's
# walk by the last warp; stop75/deferred-sum.patch on top; ptxas: 12-16 bytes spilled at 64 registers, 4-16 at 80).
# Why: tile-wait.sh (stop 75, same day) put the read/write mix at runs of 8 at 87.4-87.6 %
# untiled and 82.6 % with a 6 us wait a tile (int32 pairs), where the kernel reads 81-82 %. Against main (c91632d's
# binaries from .devcarry/s74e, the same kernels as HEAD 1764d47). Library call alone (scripts/harness/
# by_key_library_ab.cu, exact host check): plus over int32 and double, maximum over float, affine maps; 2^26 and 2^24;
# runs of 8, 32, 256 and 1..64; ab_turns.py's turns. Built with stop73/warp-look-back-ab.sh's command (ptxas sm_90:
# no spills in defer's and deferL's 8 binaries). Carry .devcarry/s75b; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s75b.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
timeout $(left) python3 scripts/harness/ab_turns.py --trees main,defer,deferL,dsum --configs int,dbl,fmax,aff --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/deferred-placement-ab.txt \
  > $OUT/deferred-placement-summary.txt 2>&1
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/deferred-placement-summary.txt | head -40
echo "WRONG lines in the raw log: $(grep -c WRONG $OUT/deferred-placement-ab.txt)"
