#!/usr/bin/env bash
# stop 68, fourth call, in BUDGET seconds, with the CLI at 4a8ee58 (.devcarry/s68b/build.tar.xz): every variant
# checked against the host reference, `reducelab check` (device_run.sh's check step: the default matrix, then the NaN
# inputs of max/min) and `reducelab segmented check` (default layouts: every segmented and by-key variant, the stream
# path among them); on an H200, then its segmented compares. Carry .devcarry/s68b and .devcarry/s68c (this script).
# Into $OUT/stop68e.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh stop68e.tgz
tar xJf .devcarry/s68b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
timeout $(( $(left) / 2 )) bash scripts/device_run.sh check
echo "check rc=$? $(el)s"
cp $OUT/summary.txt $OUT/summary-check.txt
timeout $(left) build/reducelab segmented check > $OUT/segmented-check.txt 2>&1
echo "segmented check rc=$? $(tail -1 $OUT/segmented-check.txt) $(el)s"
# On an H200 only, with the time left: both committed segmented compares (the H200's are b9d9619's, stop 61).
if [[ $dev == *H200* && $(left) -gt 200 ]]; then
  timeout $(left) bash scripts/device_run.sh segcompares
  echo "segcompares rc=$? $(el)s"
  grep -h "segmented compare" $OUT/summary*.txt 2>/dev/null
fi
