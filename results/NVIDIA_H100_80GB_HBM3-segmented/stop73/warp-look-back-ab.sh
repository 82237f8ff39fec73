#!/usr/bin/env bash
# stop 73: same-run A/B of the by-key stream kernel's look-backs done by warp 0 alone (lead/warp-look-back:
# grid::warp_look_back, 32 earlier tiles a round, the nearest prefix by ballot, one block barrier for both walks;
# stop73/warp-look-back.patch, which also moves look_back's poll of a block's two slots into poll_published so that
# both walks share it) against 1454a0d's block-wide look-back (two walks a tile, block
# barriers in every poll), which by-key-barrier-sources.txt found holding about 7 % of the kernel's stall samples at
# runs of 8. Library call alone (scripts/harness/by_key_library_ab.cu): plus over int32 and double, maximum over float,
# affine maps (not commutative: the carries' order is checked exactly); 2^26 and 2^24; runs of 8, 32, 256 and 1..64;
# ab_turns.py's turns. Prepared at stop 73 and not run (the ask was refused: too little device time left).
# The binaries (.devcarry/s73w/bk_{int,dbl,fmax,aff}_{main,lead}.xz) are built here, once per tree, with
#   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr [-DHARNESS_VALUE=double | -DHARNESS_VALUE=float
#     -DHARNESS_MAX | -DHARNESS_AFFINE] -I include -I scripts/harness -I . scripts/harness/by_key_library_ab.cu
#     comparisons/timing/stream_hold.cu -o bk_<config>_<tree>
# from main and from a worktree with the patch applied (`git apply stop73/warp-look-back.patch`; ptxas sm_90 at stop
# 73: no spills for int32 pairs, 4 bytes for int32 keys with doubles where main spills 8). Carry .devcarry/s73w (this
# script and the xz'd binaries); slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s73w.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
timeout $(left) python3 scripts/harness/ab_turns.py --trees main,lead --configs int,dbl,fmax,aff --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/warp-look-back-ab.txt
echo "ab_turns rc=$? $(el)s"
