#!/usr/bin/env bash
# Prepared at stop 79, not run yet (no H200 came, and the device time ran out). On the H200, from a carried
# .devcarry/<name>/ with its build.tar.xz (after device_verify.sh unpacked it, or alone): Nsight Compute over
# reduce_by_key's stream kernel at 2^26, runs of 8, for plus over int32 and for maximum over floats, at the GPU's own
# clocks (--clock-control none), so that its issue rate and DRAM throughput read as the compare's run does. The
# question: on the H200, whose memory is 1.44x the H100's for the same SMs and clocks, is the kernel short of issue
# slots rather than of bandwidth at runs of 8 (its by-key lines read 74.8-80.7 % of the H200's peak there in stop 79's
# harness, NVIDIA_H200-segmented/by-key-max-selects.txt, against 83.5-86.9 % of the H100's for the same kernel,
# main in NVIDIA_H100_80GB_HBM3-segmented/by-key-gap-scan.txt)?
#   run: BUDGET=200 bash results/NVIDIA_H200-segmented/stop79/ncu-by-key.sh .devcarry/<name>
set -uo pipefail
carried=$(cd "${1:?ncu-by-key.sh: name the carried folder}" && pwd)
cd "$(dirname "$0")/../../.."
source scripts/device_call.sh "$(basename "$carried")-ncu.tgz"
[ -x build/reducelab ] || { tar xJf "$carried/build.tar.xz" && echo "binaries: $(cat build/COMMIT)"; }
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
for case in plus:int32 maximum:float; do
  op=${case%%:*} type=${case#*:}
  timeout "$(left)" ncu --clock-control none --kernel-name-base mangled \
    --kernel-name 'regex:_ZN9reducelab9segmented7kernels.*stream_runs' --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section InstructionStats --section SchedulerStats \
    build/reducelab segmented compare --variants reducelab::reduce_by_key --ops "$op" --types "$type" \
    --segments uniform:8 --sizes 2^26 --samples 5 > "$OUT/ncu-$op-$type.txt" 2>&1
  echo "ncu $op/$type rc=$? $(el)s"
  grep -E 'Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Executed Ipc Active|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Executed Instructions  ' "$OUT/ncu-$op-$type.txt" | head -16
done
