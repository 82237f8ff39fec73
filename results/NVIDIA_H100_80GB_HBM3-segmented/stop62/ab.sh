#!/usr/bin/env bash
# stop 62: reduce_by_key's library call, one binary per tree (scripts/harness/by_key_library_ab.cu), in turns:
#   main   563045b (the stream path from 2^24 keys)
#   skip   main + the lane accumulators folded only after a chunk without heads (agent/run_stretch.cuh)
#   skip2  skip + the lead/tail loop's one combine an item through selects
#   off    main with min_n 2^40: the one-pass kernel alone
# plus over int32 and double values, maximum over float; 2^24-2^26; two passes, the second in reverse order.
cd "$(dirname "$0")"
for f in *.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done
out=${OUT:-.}/ab.txt; : > "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out"
for n in ${SIZES:-24 25 26}; do for v in int dbl fmax; do for pass in 1 2; do
  trees="main skip skip2 off"; [ $pass = 2 ] && trees="off skip2 skip main"
  for b in $trees; do
    echo "== $n $v $b $pass" >> "$out"
    HARNESS_LOG2N=$n timeout 60 ./bk_${v}_$b ${LENGTHS:-1,8,32,256,4096,-1} ${SAMPLES:-7} >> "$out" 2>&1
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
    v = rows[k]; base = statistics.mean(t for t, _ in v['main'])
    cells = []
    for b in ['main', 'skip', 'skip2', 'off']:
        if b not in v: continue
        t = statistics.mean(x for x, _ in v[b]); p = statistics.mean(y for _, y in v[b])
        cells.append(f"{b} {t:.1f}us {p:.1f}%" + (f" {base / t:.2f}x" if b != 'main' else ''))
    print(f"2^{k[0]} {k[1]:4} L={k[2]:>5}: " + ' | '.join(cells))
PY
