#!/usr/bin/env bash
# stop 74: the by-key stream kernel's look-back window. by-key-after-warp-look-back.txt found the other 7 warps of a
# block waiting behind warp 0's walk (8.6 % of the samples at runs of 8, 2^26, int32 pairs): a walk over aggregates
# goes back to the nearest published prefix, up to a grid's width of tiles, one L2 round trip per window of 32. Here
# each lane of warp 0 polls 4 (k4) or 8 (k8) earlier tiles at once (grid::warp_look_back<TilesPerLane>; windows of
# 128 or 256 tiles) against main at c91632d (one a lane; its binaries are stop 73's lead, the same kernels). Library
# call alone (scripts/harness/by_key_library_ab.cu): plus over int32 and double, maximum over float, affine maps (not
# commutative: the carries' order checked exactly); 2^26 and 2^24; runs of 8, 32, 256 and 1..64; ab_turns.py's turns.
# The binaries are built here with stop73/warp-look-back-ab.sh's command against include/ with
# look_back_tiles_per_lane set to 4 or 8 (ptxas sm_90: k4 spills as main, 4 bytes for int32 keys with doubles; k8
# spills 112-128 bytes for 4-byte pairs). Carry .devcarry/s74e; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s74e.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
timeout $(left) python3 scripts/harness/ab_turns.py --trees main,k4,k8 --configs int,dbl,fmax,aff --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/look-back-width-ab.txt
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/look-back-width-ab.txt | head -40
