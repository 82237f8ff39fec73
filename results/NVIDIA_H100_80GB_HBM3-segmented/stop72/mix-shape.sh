#!/usr/bin/env bash
# stop 72, second call: is the by-key stream kernel's shortfall against the read/write mix at runs of 8 (stop 72's
# first call: the mix 87.9 % of peak for int32 pairs at 2^26, the library 78.7-80.5 % in stop 68's compare) its shape
# (32 warps an SM, 64 bytes of loads a lane in flight) or its work? Same run, behind a held stream, 2^26 then 2^24,
# runs of 8, 32 and 256: the mix at its own occupancy and capped at 4 and 3 blocks an SM (the stream kernel's for
# 4-byte pairs and for int32 keys with doubles), and the library call alone (by_key_library_ab.cu built from main's
# include/ at 4a8ee58, whose kernels are HEAD's: plus over int32 and over double), its two passes in ab_turns.py's
# turns. Carry .devcarry/s72b; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s72b.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
for pass in 1 2; do
  for lg in 26 24; do
    for cap in 0 4 3; do
      f=$OUT/mix-2e$lg-cap$cap-pass$pass.txt
      HARNESS_LOG2N=$lg HARNESS_MIX_BLOCKS_PER_SM=$cap timeout 60 $d/read_write_mix 8,32,256 9 > $f 2>&1
      echo "mix 2^$lg cap $cap pass $pass rc=$? $(el)s"; grep -v "^flat\|^read" $f
    done
  done
done
timeout $(left) python3 scripts/harness/ab_turns.py --trees main69 --configs int,dbl --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256 9' --timeout 90 --out $OUT/library-ab.txt
echo "library (ab_turns.py) rc=$? $(el)s"
