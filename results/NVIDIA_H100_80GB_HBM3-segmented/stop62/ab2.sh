#!/usr/bin/env bash
# stop 62, call 2: where the stream path's fixed cost goes, reduce_by_key's library call (by_key_library_ab.cu):
#   skip    563045b + the lane accumulators folded only after a chunk without heads (call 1's winner)
#   carve   skip + both kernels of the stream path asking for the largest shared-memory carveout, so that the SMs
#           need not change their L1/shared split between the stream kernel (42.3 KB a block) and the one-pass kernel
#   nowait  skip with the stream kernel's blocks other than 0 leaving at once (a diagnostic: wrong for long runs)
#   off     the one-pass kernel alone
# plus over int32, maximum over float; 2^24 and 2^26; two passes, the second in reverse order.
cd "$(dirname "$0")"
for f in *.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done
out=${OUT:-.}/ab2.txt; : > "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out"
for n in 24 26; do for v in int fmax; do for pass in 1 2; do
  trees="skip carve nowait off"; [ $pass = 2 ] && trees="off nowait carve skip"
  for b in $trees; do
    echo "== $n $v $b $pass" >> "$out"
    HARNESS_LOG2N=$n timeout 60 ./bk_${v}_$b 1,8,256,4096 7 >> "$out" 2>&1
  done
done; done; done
python3 - "$out" <<'PY'
import re, sys, statistics
rows, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'== (\d+) (\w+) (\w+) (\d)', line)
    if m: cur = m.groups(); continue
    if 'WRONG' in line: print('WRONG', cur, line.strip())
    m = re.match(r'L=(-?\d+)\s+S=\d+\s+library ([\d.]+)us ([\d.]+)%', line)
    if m and cur:
        rows.setdefault((int(cur[0]), cur[1], int(m.group(1))), {}).setdefault(cur[2], []).append((float(m.group(2)), float(m.group(3))))
for k in sorted(rows):
    v = rows[k]; base = statistics.mean(t for t, _ in v['skip'])
    cells = []
    for b in ['skip', 'carve', 'nowait', 'off']:
        if b not in v: continue
        t = statistics.mean(x for x, _ in v[b]); p = statistics.mean(y for _, y in v[b])
        cells.append(f"{b} {t:.1f}us {p:.1f}%" + (f" {base / t:.2f}x" if b != 'skip' else ''))
    print(f"2^{k[0]} {k[1]:4} L={k[2]:>5}: " + ' | '.join(cells))
PY
