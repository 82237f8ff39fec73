#!/usr/bin/env bash
# stop 75, prepared for the next stop: the committed segmented compares at the deferred placement's binaries (65231dc,
# build.tar.xz; HEAD's code differs in comments only), on whichever GPU comes (on an H200 its first segmented compares
# since b9d9619), then the whole CTest suite, 8 at once (at 65231dc it was cut at 154 of 176 by the call's limit).
# About 115 s + 83 s on the H100. Carry .devcarry/s76; slim first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s76.tgz
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
timeout $(left) bash scripts/device_run.sh segcompares tests
echo "device_run.sh segcompares tests rc=$? $(el)s"
cat $OUT/summary.txt
