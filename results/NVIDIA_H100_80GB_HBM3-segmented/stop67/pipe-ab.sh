#!/usr/bin/env bash
# stop 67, fourth call (carry .devcarry/s67p: this script, the harness binaries and pipe.diff; and .devcarry/s67b for an
# H200). A/B of the stream walk's short-run lanes (8 items a lane, one chunk a group) with the next chunk's loads
# issued before this one is worked (pipe.diff, RL_PIPE): Nsight Compute at 7958858 (runs of 8, plus over int32) put
# 38 % of the kernel's stall samples on the first use of a chunk's keys. The pipelined walk needs more registers:
# at 4 blocks an SM (64 registers) it spills 276 bytes, so for 4-byte pairs it is built at 3 (RL_MINB=3, 80 registers,
# 4 bytes spilled for int, 16 for fmax); 8-byte values (dbl, aff) are at 3 blocks already and spill 184 / 148 bytes.
# Trees: main68 = include/ at a70c3eb; m3 = main68 at 3 blocks an SM (dbl, aff: main68 itself); pp3 = pipelined at 3.
# Harness scripts/harness/by_key_library_ab.cu, by ab_turns.py (two passes, reverse order), held stream.
# On an H200, then both committed segmented compares (CLI at 7958858). Everything into $OUT/stop67e.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-570}
left() { echo $(( budget - $(el) - 10 )); }
final=$OUT; export OUT=$final/w; mkdir -p $OUT
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
trap 'tar czf $final/stop67e.tgz -C $final w -C "$PWD" results/$dev-segmented results/$dev-segmented-n26 2>/dev/null; rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
CUDA_MODULE_LOADING=EAGER HARNESS_HOLD=1 timeout $(( $(left) < 200 ? $(left) : 200 )) python3 scripts/harness/ab_turns.py \
  --trees main68,m3,pp3 --configs int,fmax,dbl,aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" \
  --args '8,32,256,4096,-1 7' --timeout 60 --out $OUT/ab_pipe.txt > $OUT/ab_pipe_summary.txt 2>&1
echo "ab_pipe rc=$? $(el)s"; cat $OUT/ab_pipe_summary.txt; grep WRONG $OUT/ab_pipe.txt | head -5
if [[ $dev == *H200* && -f .devcarry/s67b/build.tar.xz ]]; then
  tar xJf .devcarry/s67b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
fi
