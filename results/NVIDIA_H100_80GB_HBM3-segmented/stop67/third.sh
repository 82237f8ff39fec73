#!/usr/bin/env bash
# stop 67, third call (carry .devcarry/s67b: this folder and build.tar.xz at 7958858). On an H200: both committed
# segmented compares and the segmented library's tests (the H200's compares are b9d9619's, stop 61). On an H100: Nsight
# Compute's full set with per-instruction (SASS) source counters on the stream kernel at runs of 8, 2^26, for plus over
# int32 and maximum over float, printed as the source page (CSV), to find which instructions the by-key runs-of-8
# lines spend their issue slots and stalls on. Everything into $OUT/stop67d.tgz.
# (As run, its first lines set $OUT and the timers up inline, and it packed the report folders a second time beside
# $OUT's copies; scripts/device_call.sh holds those lines since, without the second copy.)
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop67d.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
if [[ $dev == *H200* ]]; then
  timeout $(left) build/tests/test_gpu_segmented_library --gtest_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*' \
    > $OUT/segmented-tests.log 2>&1
  echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/segmented-tests.log | tr '\n' ' ') $(el)s"
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
else
  for c in plus:int32 maximum:float; do
    o=${c%%:*}; ty=${c##*:}
    [ $(left) -lt 90 ] && { echo "ncu $c: not run"; continue; }
    timeout $(left) ncu --kernel-name-base mangled --kernel-name 'regex:stream_runs' --launch-skip 3 --launch-count 1 \
      --set full --import-source no -o $OUT/ncu-$o-$ty-runs8 -f \
      build/reducelab segmented compare --variants reducelab::reduce_by_key --ops $o --types $ty \
      --segments uniform:8 --sizes 2^26 --samples 5 > $OUT/ncu-$o-$ty-runs8.log 2>&1
    echo "ncu $c rc=$? $(el)s"
    ncu --import $OUT/ncu-$o-$ty-runs8.ncu-rep --page source --print-source sass --csv > $OUT/sass-$o-$ty-runs8.csv 2> $OUT/sass-$o-$ty-runs8.err
    echo "source page rc=$? $(wc -l < $OUT/sass-$o-$ty-runs8.csv) lines"
    ncu --import $OUT/ncu-$o-$ty-runs8.ncu-rep --page details > $OUT/details-$o-$ty-runs8.txt 2>&1
    grep -E "Duration|DRAM Throughput|Issued Warp Per Scheduler|Executed Instructions  " $OUT/details-$o-$ty-runs8.txt | tr -s ' ' | tr '\n' ';'; echo
  done
fi
