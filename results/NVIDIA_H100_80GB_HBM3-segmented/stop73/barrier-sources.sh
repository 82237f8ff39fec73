#!/usr/bin/env bash
# stop 73, last: where the by-key stream kernel's barrier stalls sit (by-key-load-pattern.txt: 2.39 of 19.8 cycles per
# issued instruction at runs of 8, 2^26, int32 pairs). Nsight Compute's warp-state samples per SASS instruction of
# stream_runs (lead/one-head = 686416e's kernels): the barrier after the warps stream their stretches (waiting for the
# block's slowest warp) against those inside the look-back (kernels/stream_runs.cuh, grid/segment_carries.cuh).
# Carry .devcarry/s73b; the SASS addresses map onto `cuobjdump -sass` of the same binary here.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s73e.tgz
xz -dc $d/bk_int_lead.xz > $d/bk && chmod +x $d/bk
HARNESS_LOG2N=26 timeout 60 ncu --clock-control none --set full -k regex:stream_runs --launch-skip 1 \
  --launch-count 1 -o $OUT/stream $d/bk 8 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$? $(el)s"
ncu -i $OUT/stream.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
echo "source page rc=$? $(wc -l < $OUT/sass.csv) lines"
python3 - "$OUT/sass.csv" <<'PY'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1], errors='replace')))
hi = next((i for i, r in enumerate(rows) if any('Address' in c for c in r) and any('Source' in c for c in r)), None)
if hi is None:
    print('no header found; first lines:'); [print(r[:6]) for r in rows[:5]]; sys.exit()
h = rows[hi]
col = lambda name: next((i for i, c in enumerate(h) if name in c), None)
a, s = col('Address'), col('Source')
w = col('Warp Stall Sampling (All Samples)') or col('Warp Stall Sampling')
print('columns:', [c for c in h if 'Stall' in c or 'Sampl' in c][:6])
num = lambda x: float(x.replace(',', '') or 0)
body = [r for r in rows[hi + 1:] if len(r) > max(a, s, w)]
total = sum(num(r[w]) for r in body) or 1
by_op = collections.Counter()
for r in body: by_op[r[s].split()[0] if r[s].split() else '?'] += num(r[w])
print('samples %d; by opcode:' % total, ', '.join('%s %.1f%%' % (k, 100 * v / total) for k, v in by_op.most_common(10)))
for r in sorted(body, key=lambda r: -num(r[w]))[:30]:
    print('%6.2f%%  %s  %s' % (100 * num(r[w]) / total, r[a], r[s][:80]))
PY
