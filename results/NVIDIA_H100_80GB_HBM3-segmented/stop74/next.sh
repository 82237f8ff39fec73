#!/usr/bin/env bash
# stop 74, third call. On an H200: stop74/cycle.sh's steps at c91632d (the read/write-mix ceiling, then
# device_run.sh tests segcompares segmented), the H200's first compares since b9d9619 (stop 61). On an H100: where the
# by-key stream kernel's stalls sit after warp 0 took the look-backs (c91632d's kernel, bk_int_lead, against
# 1454a0d's, bk_int_main: plus over int32 pairs, 2^26, runs of 8): stall reasons per issued instruction, as
# stop73/load-pattern.sh measured them, and the per-SASS samples of the new kernel, as stop73/barrier-sources.sh.
# Carry .devcarry/s74d; slim the tree first. Into $OUT/s74d.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash $d/cycle.sh  # stop74/cycle.sh, from this folder
fi
source scripts/device_call.sh s74d.tgz
for t in main lead; do xz -dc $d/bk_int_$t.xz > $d/bk_int_$t && chmod +x $d/bk_int_$t; done
m='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed'
export HARNESS_LOG2N=26
for t in main lead; do
  timeout 40 ncu --clock-control none -k regex:stream_runs --launch-skip 1 --launch-count 1 --metrics "$m" \
    $d/bk_int_$t 8 1 > $OUT/ncu-stream-$t.txt 2>&1; echo "ncu stream $t rc=$? $(el)s"
done
python3 - "$OUT" <<'PY'
import re, sys, os
rows = {}
for name in ('main', 'lead'):
    for line in open(os.path.join(sys.argv[1], 'ncu-stream-%s.txt' % name)):
        m = re.match(r'\s+(\S+)\s+(\S+)?\s+([\d,.]+)$', line)
        if m: rows.setdefault(m.group(1), {})[name] = m.group(3)
print('%-60s %14s %14s' % ('metric', 'main 1454a0d', 'lead c91632d'))
for k, v in sorted(rows.items()):
    vals = [v.get(n, '-') for n in ('main', 'lead')]
    if 'stalled' in k and all(x == '-' or float(x.replace(',', '')) < 0.05 for x in vals): continue
    print('%-60s %14s %14s' % (k.replace('smsp__average_warps_issue_stalled_', 'stall_'), *vals))
PY
timeout 60 ncu --clock-control none --set full -k regex:stream_runs --launch-skip 1 --launch-count 1 \
  -o $OUT/stream-lead $d/bk_int_lead 8 1 > $OUT/ncu-full.log 2>&1
echo "ncu full rc=$? $(el)s"
ncu -i $OUT/stream-lead.ncu-rep --page source --csv --print-source sass > $OUT/sass-lead.csv 2>&1
echo "source page rc=$? $(wc -l < $OUT/sass-lead.csv) lines $(el)s"
