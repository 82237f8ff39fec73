#!/usr/bin/env bash
# stop 73: same-run A/B of the short-run chunk's one-head path (lead/one-head: where no lane of a chunk holds two
# heads, each lane with a head closes its run with op(entering, lead), no per-item walk, no count ballots) against
# main (26253db; its bk_int/bk_dbl built at fb5b1ff, same kernels), the library call alone
# (scripts/harness/by_key_library_ab.cu: plus over int32 and double, maximum over float, affine maps), 2^26 and 2^24,
# runs of 8, 32, 256 and 1..64, in ab_turns.py's turns; then Nsight Compute's instruction count and DRAM throughput
# of each tree's stream kernel at runs of 8 (int32 pairs, 2^26). Carry .devcarry/s73; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s73.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
timeout $(( $(left) - 40 )) python3 scripts/harness/ab_turns.py --trees main,lead --configs int,dbl,fmax,aff \
  --sizes 26,24 --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/one-head-ab.txt
echo "ab_turns rc=$? $(el)s"
unset HARNESS_HOLD
for t in main lead; do
  HARNESS_LOG2N=26 timeout 30 ncu --clock-control none -k regex:stream_runs --launch-skip 1 --launch-count 1 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $d/bk_int_$t 8 1 > $OUT/ncu-$t.txt 2>&1
  echo "ncu $t rc=$? $(el)s"; grep -E "duration|inst_executed|dram__" $OUT/ncu-$t.txt
done
