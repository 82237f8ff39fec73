#!/usr/bin/env bash
# stop 63, call 2 (by_key_library_ab.cu via ab_turns.py), against call 1's winner pdl (the one-pass kernel as the
# stream kernel's programmatic dependent):
#   pdlwide   pdl + 8 items a lane in chunks of 256 (items = 8, chunks = 1)
#   pdlsw     pdl + the keys' sample also picks the lanes' width: runs averaging under 128 take 8 items a lane, longer
#             ones 4 (both widths compiled into the stream kernel; doubles spill 24 bytes)
#   pdl16     pdl + a sample of 16 windows of 256 consecutive keys (a warp a window) for 256 windows of 16
#   off       the one-pass kernel alone
d=$(dirname "$0"); cd "$d"
for f in *.xz; do [ -x ${f%.xz} ] || { xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; }; done
cd - >/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
s=$(date +%s)
python3 scripts/harness/ab_turns.py --trees pdl,pdlwide,pdlsw,pdl16 --configs int,dbl,fmax --sizes 24,26 \
  --binary "$d/bk_{config}_{tree}" --args '1,8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab2_width.txt > $OUT/ab2_width_summary.txt 2>&1
echo "ab2_width rc=$? $(( $(date +%s) - s ))s"; cat $OUT/ab2_width_summary.txt
python3 scripts/harness/ab_turns.py --trees pdl,pdl16,off --configs int,dbl --sizes 24 \
  --binary "$d/bk_{config}_{tree}" --args '1 9' --timeout 60 --out $OUT/ab2_fixed.txt > $OUT/ab2_fixed_summary.txt 2>&1
echo "ab2_fixed rc=$? $(( $(date +%s) - s ))s"; cat $OUT/ab2_fixed_summary.txt
