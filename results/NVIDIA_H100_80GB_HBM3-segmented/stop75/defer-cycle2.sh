#!/usr/bin/env bash
# stop 75, one call on whichever GPU comes, cut to the device time left (634 s): (1) deferred-placement-ab.sh's
# same-run A/B, main / defer / dsum, int32 / double / affine configs (deferL and fmax left out: the carry's 64 MiB);
# (2) with the defer branch's binaries (build.tar.xz, commit in build/COMMIT): device_run.sh segmented (the segmented
# GPU tests, then memcheck, racecheck and synccheck over the by-key stream path's tests, `reducelab segmented check`)
# and tests (the whole CTest suite, 8 at once). No segcompares: no device time for them. Carry .devcarry/s75b; slim
# first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s75d.tgz
(cd $d && for f in bk_*.xz; do xz -dc $f > ${f%.xz}; chmod +x ${f%.xz}; done)
HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER timeout 100 python3 scripts/harness/ab_turns.py --trees main,defer,dsum \
  --configs int,dbl,aff --sizes 26,24 --binary "$d/bk_{config}_{tree}" --args '8,32,256,-1 9' --timeout 60 \
  --out $OUT/deferred-placement-ab.txt > $OUT/deferred-placement-summary.txt 2>&1
echo "ab_turns rc=$? $(el)s"
grep -E '^2\^2[46] |WRONG|fail' $OUT/deferred-placement-summary.txt | head -40
echo "WRONG lines in the raw log: $(grep -c WRONG $OUT/deferred-placement-ab.txt)"
tar xJf $d/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
export LD_LIBRARY_PATH=$PWD/build/lib:${LD_LIBRARY_PATH:-}
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh segmented tests
echo "device_run.sh segmented tests rc=$? $(el)s"
cat $OUT/summary.txt
