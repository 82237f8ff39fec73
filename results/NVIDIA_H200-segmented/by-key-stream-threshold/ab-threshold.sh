#!/usr/bin/env bash
# stop 61: reduce_by_key at b9d9619 (main: stream path from 2^22 keys) against the same tree with the stream path off
# (off: min_n 2^40, the one-pass kernel alone), same run, 2^22-2^26, plus over int32 and double values (the harness library row).
# Each binary is scripts/harness/by_key_stream_proxy.cu built against that tree's include/ (sm_90); its `library` row
# is the tree's reducelab::reduce_by_key. Output: $OUT/ab.txt (every line) and a summary (library us, x main).
cd "$(dirname "$0")"
out=${OUT:-.}/ab.txt; : > "$out"
for n in ${SIZES:-22 23 24 25 26}; do for v in int dbl; do for b in main off; do
  echo "== $n $v $b" >> "$out"
  HARNESS_LOG2N=$n timeout 60 ./bk_${v}_$b ${LENGTHS:-1,4,8,32,256,4096,-1} ${SAMPLES:-5} >> "$out" 2>&1
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
# The library's kernels alone under Nsight Compute (serialized: each kernel's own time), 2^24 int32, runs of 1 and 256
for L in 1 256; do
  HARNESS_LOG2N=24 timeout 60 ncu --kernel-name-base mangled --kernel-name regex:_ZN9reducelab9segmented7kernels \
    --launch-count 4 --metrics gpu__time_duration.sum,launch__grid_size ./bk_int_main $L 1 > ${OUT:-.}/ncu-$L.txt 2>&1
  echo "ncu L=$L rc=$?"; grep -E "^  [a-z_A-Z]|duration|grid_size" ${OUT:-.}/ncu-$L.txt | sed 's/(const.*//' | cut -c1-140 | head -16
done
