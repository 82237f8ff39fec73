#!/usr/bin/env bash
# stop 76, one call on whichever GPU comes: with the 46 KiB stash's binaries (build.tar.xz, commit in build/COMMIT),
# device_run.sh segcompares (both committed compares; on an H200 its first since b9d9619), segmented (the segmented
# GPU tests, then memcheck, racecheck and synccheck over the by-key stream path's tests, `reducelab segmented check`)
# and tests (the whole CTest suite, 8 at once). About 107 + 290 + 84 s on the H100. Carry .devcarry/s76c; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s76c.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh segcompares segmented tests
echo "device_run.sh segcompares segmented tests rc=$? $(el)s"
cat $OUT/summary.txt
