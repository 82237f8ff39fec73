#!/usr/bin/env bash
# Stop 61's first call (prepared at stop 60): the by-key stream path's two leads against main, same call.
#   main    60a2084 (kernels as at cd03c7c)       even    lead/by-key-even-stretch (f600afe)
#   ballot  lead/by-key-ballot-scans (070047c)    both    lead/by-key-even-ballot (b9d9619)
# (built at stop 60 from the branches before their rebases onto cd03c7c, which changed no kernel)
# Each binary is scripts/harness/by_key_stream_proxy.cu built against that tree's include/ (sm_90); its `library` row
# is the tree's reducelab::reduce_by_key. Output: $OUT/ab.txt (every line) and a summary (library us, x main).
cd "$(dirname "$0")"
out=${OUT:-.}/ab.txt; : > "$out"
for n in ${SIZES:-26 24}; do for v in int dbl; do for b in main even ballot both; do
  echo "== $n $v $b" >> "$out"
  HARNESS_LOG2N=$n timeout 60 ./bk_${v}_$b ${LENGTHS:-1,8,16,32,256,4096,-1,-2} ${SAMPLES:-5} >> "$out" 2>&1
done; done; done
python3 - "$out" <<'PY'
import re, sys
rows, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'== (\d+) (\w+) (\w+)', line)
    if m: cur = m.groups(); continue
    m = re.match(r'L=(-?\d+)', line)
    if m and cur:
        lib = re.search(r'library ([\d.]+)us ([\d.]+)%', line); j = re.search(r'joined_2 ([\d.]+)us', line)
        bad = 'WRONG' in line
        rows.setdefault((cur[0], cur[1], m.group(1)), {})[cur[2]] = (float(lib.group(1)), lib.group(2), j.group(1), bad)
for k, v in rows.items():
    base = v.get('main', (None,))[0]
    cells = ' | '.join(f"{b} {x[0]:.1f}us {x[1]}%" + (f" {base / x[0]:.2f}x" if base and b != 'main' else '') +
                       (' WRONG' if x[3] else '') for b, x in v.items())
    joined = f" (joined_2 {v['main'][2]}us)" if 'main' in v else ''
    print(f"2^{k[0]} {k[1]} L={k[2]:>5}: {cells}{joined}")
PY
