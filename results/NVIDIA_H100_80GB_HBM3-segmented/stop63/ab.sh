#!/usr/bin/env bash
# stop 63, call 1 (harness by_key_library_ab.cu, one binary per tree and configuration, run by ab_turns.py):
#   main      5bec947 (4 items a lane, chunks of 2 x 32 x 4)
#   wide      main with by_key_stream_policy items = 8, chunks = 1 (8 items a lane in chunks of 256)
#   pdl       main with the one-pass kernel launched as the stream kernel's programmatic dependent (released at the
#             stream kernel's start; its blocks wait for the stream kernel before they leave)
#   off       the one-pass kernel alone (min_n 2^40)
#   nosample  DIAGNOSTIC: block 0 publishes one_pass without reading the keys' sample (runs of 1 only)
#   g1        DIAGNOSTIC: nosample with a stream kernel of one block (runs of 1 only)
d=$(dirname "$0"); cd "$d"
for f in *.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done
cd - >/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
s=$(date +%s)
python3 scripts/harness/ab_turns.py --trees main,wide,pdl --configs int,dbl,fmax --sizes 24,26 \
  --binary "$d/bk_{config}_{tree}" --args '1,8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_wide.txt > $OUT/ab_wide_summary.txt 2>&1
echo "ab_wide rc=$? $(( $(date +%s) - s ))s"; cat $OUT/ab_wide_summary.txt
python3 scripts/harness/ab_turns.py --trees main,off,nosample,g1,pdl --configs int,dbl --sizes 24,26 \
  --binary "$d/bk_{config}_{tree}" --args '1 9' --timeout 60 --out $OUT/ab_fixed.txt > $OUT/ab_fixed_summary.txt 2>&1
echo "ab_fixed rc=$? $(( $(date +%s) - s ))s"; cat $OUT/ab_fixed_summary.txt
