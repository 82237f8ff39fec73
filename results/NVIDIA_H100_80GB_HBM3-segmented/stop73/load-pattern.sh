#!/usr/bin/env bash
# stop 73, after one-head-ab.sh: the one-head path cut the stream kernel's instructions at runs of 8 by 16 % (102.0 M ->
# 86.1 M, fewer than the read/write mix's 88.5 M) and gained only 1.01-1.03x, so instructions are not what holds it at
# 79 % of peak where the mix, capped at its shape, reads 87.6 %. Two suspects: its loads (8 consecutive items a lane,
# two 16-byte vectors 32 bytes apart across lanes: each warp-wide load asks for every other 16 bytes of 1 KiB), and its
# tiles (two block barriers, thread 0's join and the look-back per tile). 1) the mix at the kernel's shape, coalesced
# against HARNESS_MIX_LANE_ITEMS=8 (the kernel's load pattern, same bytes in flight), same run, two passes, 2^26 and
# 2^24, runs of 8, 32 and 256; 2) Nsight Compute's stall reasons per issued instruction for the stream kernel (lead,
# int32 pairs, runs of 8, 2^26) and both mixes; 3) a same-run A/B of the short-run lanes with the long-run lanes'
# coalesced shape (lead/short-coalesced: 4 items a lane in two chunks of 128, as the one-head path made a chunk's work
# cheaper; 12-28 bytes of spills, ptxas sm_90) against 8 items in one chunk (lead/one-head), the library call alone,
# plus over int32 and double, maximum over float. Carry .devcarry/s73 (read_write_mix built at this commit); slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s73c.tgz
(cd $d && for f in bk_*_lead.xz bk_*_lead2.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
export HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER
for pass in 1 2; do
  for lg in 26 24; do
    for items in 4 8; do
      for cap in 4 3; do
        f=$OUT/mix-2e$lg-items$items-cap$cap-pass$pass.txt
        HARNESS_LOG2N=$lg HARNESS_MIX_BLOCKS_PER_SM=$cap HARNESS_MIX_LANE_ITEMS=$items timeout 60 $d/read_write_mix \
          8,32,256 9 > $f 2>&1
        echo "mix 2^$lg items $items cap $cap pass $pass rc=$? $(el)s"; grep "^mix\|WRONG" $f | grep -v "^mix    $([ $cap = 4 ] && echo dbl || echo int)"
      done
    done
  done
done
unset HARNESS_HOLD
m='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum'
export HARNESS_LOG2N=26
timeout 40 ncu --clock-control none -k regex:stream_runs --launch-skip 1 --launch-count 1 --metrics "$m" \
  $d/bk_int_lead 8 1 > $OUT/ncu-stream-lead.txt 2>&1; echo "ncu stream lead rc=$? $(el)s"
for items in 4 8; do
  HARNESS_MIX_BLOCKS_PER_SM=4 HARNESS_MIX_LANE_ITEMS=$items timeout 40 ncu --clock-control none -k regex:mix \
    --launch-skip 1 --launch-count 1 --metrics "$m" $d/read_write_mix 8 1 > $OUT/ncu-mix-items$items.txt 2>&1
  echo "ncu mix items $items rc=$? $(el)s"
done
python3 - "$OUT" <<'PY'
import re, sys, os
rows = {}
for name in ('stream-lead', 'mix-items4', 'mix-items8'):
    for line in open(os.path.join(sys.argv[1], 'ncu-%s.txt' % name)):
        m = re.match(r'\s+(\S+)\s+(\S+)?\s+([\d,.]+)$', line)
        if m: rows.setdefault(m.group(1), {})[name] = m.group(3)
print('%-80s %14s %14s %14s' % ('metric', 'stream-lead', 'mix-items4', 'mix-items8'))
for k, v in sorted(rows.items()):
    vals = [v.get(n, '-') for n in ('stream-lead', 'mix-items4', 'mix-items8')]
    if 'stalled' in k and all(x == '-' or float(x.replace(',', '')) < 0.05 for x in vals): continue
    print('%-80s %14s %14s %14s' % (k.replace('smsp__average_warps_issue_stalled_', 'stall_'), *vals))
PY
export HARNESS_HOLD=1
unset HARNESS_LOG2N
timeout $(left) python3 scripts/harness/ab_turns.py --trees lead,lead2 --configs int,dbl,fmax --sizes 26,24 \
  --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 --out $OUT/short-coalesced-ab.txt
echo "ab_turns rc=$? $(el)s"
