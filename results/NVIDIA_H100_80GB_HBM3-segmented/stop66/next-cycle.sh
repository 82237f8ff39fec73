#!/usr/bin/env bash
# stop 67 (prepared at stop 66), in BUDGET seconds (default 570); everything packed into $OUT/stop67.tgz.
#   on an H200: the segmented compares at c6a8949 (2^26, then 2^24; the H200's are b9d9619's, stop 61), then the
#               L2-prefetch A/B (.devcarry/s66pf/ab.sh) with the time left;
#   on an H100: the L2-prefetch A/B first, then Nsight Compute on the stream kernel at runs of 8 and of 256 (plus over
#               int32, 2^26): stop 62's profile (ncu-by-key-max-vs-plus-563045b.txt) predates the 8-item lanes and the
#               longer tiles.
# Carry: .devcarry/s67, .devcarry/s66pf (harness binaries) and .devcarry/cli.tar.xz (the CLI alone at c6a8949, whose
# kernels HEAD compiles to the same SASS; with build.tar.xz instead the carry passes the device tool's 64 MiB).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-570}
final=$OUT; export OUT=$final/w; mkdir -p $OUT
trap 'tar czf $final/stop67.tgz -C $final w && rm -rf $final/w' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
tar xJf .devcarry/cli.tar.xz && echo "binaries: $(cat build/COMMIT)"
compares() {
  SEG_ARGS="--sizes 2^26" SEG_OUT=results/$dev-segmented-n26 timeout $(( budget - $(el) )) bash scripts/device_run.sh segcompare
  echo "segcompare 2^26 rc=$? $(el)s"; cp $OUT/summary.txt $OUT/summary-n26.txt; cp $OUT/segmented-compare.txt $OUT/segmented-compare-n26.txt
  grep "segmented compare" $OUT/summary-n26.txt
  timeout $(( budget - $(el) )) bash scripts/device_run.sh segcompare
  echo "segcompare 2^24 rc=$? $(el)s"; grep "segmented compare" $OUT/summary.txt
}
pf() {
  local left=$(( budget - $(el) - 10 ))
  [ $left -lt 60 ] && { echo "pf A/B: ${left}s left, not run"; return; }
  local o=$OUT; OUT=$o/pf BUDGET=$left bash .devcarry/s66pf/ab.sh; OUT=$o
  tar xzf $o/pf/pf.tgz -C $o/pf && rm $o/pf/pf.tgz
  echo "pf A/B $(el)s"
}
profile() {
  for L in 8 256; do
    local left=$(( budget - $(el) - 10 ))
    [ $left -lt 60 ] && { echo "ncu runs of $L: ${left}s left, not run"; continue; }
    timeout $left ncu --kernel-name-base mangled --kernel-name 'regex:_ZN9reducelab9segmented7kernels.*stream_runs' \
      --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
      --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      build/reducelab segmented compare --variants reducelab::reduce_by_key --ops plus --types int32 \
      --segments uniform:$L --sizes 2^26 --samples 5 > $OUT/ncu-by-key-runs$L.txt 2>&1
    echo "ncu runs of $L rc=$? $(grep -E 'Duration|DRAM Throughput|Issued Warp Per Scheduler' $OUT/ncu-by-key-runs$L.txt | tr -s ' ' | tr '\n' ';') $(el)s"
  done
}
if [[ $dev == *H200* ]]; then compares; pf; else pf; profile; fi
