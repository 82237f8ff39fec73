#!/usr/bin/env bash
# stop 76: same-run A/B of the by-key stream kernel with one block barrier a tile. main = HEAD's kernels (the s46
# binaries of stop75/deferL-ab.sh: deferred placement, 46 KiB stash). early and late0: the waiting tile's runs_before
# and carry_in kept by slot (two of each), so that the barrier before its stores can go: thread 0 joins tile t while
# the other warps store the waiting tile. early: warp 0 looks back for the waiting tile before streaming tile t (its
# tiles before were joined a round ago), late0: after streaming t (where main does it), both before the one barrier.
# Library call alone (scripts/harness/by_key_library_ab.cu, exact host check): plus over int32 and double, maximum over
# float, affine maps; 2^26 and 2^24; runs of 8, 32, 256 and 1..64; ab_turns.py's turns. ptxas sm_90: no spills.
# About 70 s. Carry .devcarry/s76e; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s76e.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER timeout $(left) python3 scripts/harness/ab_turns.py --trees s46,early,late0 \
  --configs int,dbl,fmax,aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 \
  --out $OUT/one-barrier-ab.txt > $OUT/one-barrier-summary.txt 2>&1
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/one-barrier-summary.txt | head -40
echo "WRONG lines in the raw log: $(grep -c WRONG $OUT/one-barrier-ab.txt)"
