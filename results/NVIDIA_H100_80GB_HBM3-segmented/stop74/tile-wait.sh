#!/usr/bin/env bash
# stop 74: what a per-tile wait costs a pass that only moves reduce_by_key's bytes (scripts/harness/read_write_mix.cu,
# HARNESS_MIX_TILE_STEPS / HARNESS_MIX_TILE_WAIT_NS), at the stream kernel's shape: 2^26, runs of 8; int32 pairs at 4
# blocks an SM with a barrier every 17 steps (34816 items a block, the kernel's int32 tile), int32 keys with doubles at
# 3 blocks an SM every 11 steps (22528 items). Waits of 0 (the two barriers alone), 2, 4, 6 and 8 us (thread 0 spins;
# cycles at the device's nominal clock), and the untiled mix, two passes in turns. by-key-after-warp-look-back.txt put
# the kernel's wait behind warp 0's walk at about 6 us a tile. This bounds what overlapping that wait could gain.
# Carry .devcarry/s74g; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s74g.tgz
xz -dc $d/read_write_mix.xz > $d/rwm && chmod +x $d/rwm
export HARNESS_HOLD=1 HARNESS_LOG2N=26
run() {  # $1 label, $2 cap, $3 steps (0: untiled), $4 wait ns, $5 row (int|dbl)
  local f=$OUT/$1-$5-pass$pass.txt
  HARNESS_MIX_BLOCKS_PER_SM=$2 HARNESS_MIX_TILE_STEPS=$3 HARNESS_MIX_TILE_WAIT_NS=$4 timeout 60 $d/rwm 8 9 > $f 2>&1
  echo "$(printf '%-9s' $1) pass $pass rc=$? $(grep -E "^(mix|read) +$5 " $f | tr -s ' ' | tr '\n' '|') $(grep -c WRONG $f) wrong"
}
for pass in 1 2; do
  for w in untiled 0 2000 4000 6000 8000; do
    if [ $w = untiled ]; then run untiled 4 0 0 int; run untiled 3 0 0 dbl
    else run wait$w 4 17 $w int; run wait$w 3 11 $w dbl; fi
  done
done
echo "done $(el)s"
