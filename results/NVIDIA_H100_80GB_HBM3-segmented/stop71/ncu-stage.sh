#!/usr/bin/env bash
# stop 71, second call: why the stage's second form (lead/stage, 39ca170) gains nothing at runs of 8 (0.97-0.99x for
# int32 at 2^26 in any.sh's A/B). Nsight Compute's full set on the stream kernel, harness binaries main69 and stage3,
# 2^26, runs of 8: plus over int32 first, then plus over double if time is left. Prints each report's duration, DRAM
# throughput, L2 hit rate, issue rate and the warps' stall reasons; the reports, details and raw pages into
# $OUT/s71ncu.tgz. Carry .devcarry/s71; slim the tree first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s71ncu.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
for cfg in int dbl; do
  for tree in main69 stage3; do
    [ $(left) -lt 45 ] && { echo "ncu $cfg $tree: not run ($(left) s left)"; continue; }
    r=$OUT/ncu-$cfg-$tree-runs8
    HARNESS_LOG2N=26 timeout $(left) ncu --kernel-name-base mangled --kernel-name 'regex:stream_runs' --launch-skip 1 \
      --launch-count 1 --set full -o $r -f $d/bk_${cfg}_${tree} 8 2 > $r.log 2>&1
    echo "ncu $cfg $tree rc=$? $(el)s: $(grep -E '^L=8' $r.log | head -1)"
    ncu --import $r.ncu-rep --page details > $r-details.txt 2>&1
    ncu --import $r.ncu-rep --page raw --csv > $r-raw.csv 2>&1
    grep -E "^ +(Duration|DRAM Throughput|L2 Hit Rate|L1/TEX Hit Rate|Issued Warp Per Scheduler|Executed Instructions|Warp Cycles Per Issued Instruction|Achieved Occupancy|Dynamic Shared Memory Per Block) " \
      $r-details.txt | tr -s ' ' | tr '\n' ';'; echo
    # the stall reasons, cycles a warp spends per issued instruction on each (largest first)
    python3 - "$r-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if 'ID' in r[:2] or 'Kernel Name' in r)
names, vals = rows[head], rows[head + 2] if len(rows) > head + 2 else rows[-1]
got = []
for n, v in zip(names, vals):
    if n.startswith('smsp__average_warps_issue_stalled_') and n.endswith('_per_issue_active.ratio'):
        try: got.append((float(v.replace(',', '')), n[len('smsp__average_warps_issue_stalled_'):-len('_per_issue_active.ratio')]))
        except ValueError: pass
print('  stalls per issue: ' + ', '.join(f'{k} {v:.2f}' for v, k in sorted(got, reverse=True)[:8]))
PY
  done
done
