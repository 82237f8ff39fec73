#!/usr/bin/env bash
# A same-run A/B on the GPU machine in one line: the harness binaries built here, one per tree and configuration, xz'd
# into a carried folder as bk_<config>_<tree>.xz (any name pattern: --binary), run in ab_turns.py's turns behind a held
# stream, within BUDGET seconds (device_call.sh). Where the budget ends the run early, the rows come from the raw log
# so far (ab_turns.py --summarize), and the passes missing are said. Brings back <name>.tgz: ab.txt (raw log) and
# ab-summary.txt.
#   bash scripts/harness/build_ab.sh .devcarry/<name> main=HEAD lead=<branch>   # here: the binaries
#   bash scripts/device_tree.sh slim                      # here, before the call; restore after it
#   run: BUDGET=150 bash scripts/harness/device_ab.sh .devcarry/<name> --trees main,lead --configs int,dbl \
#          --sizes 26,24 --args '8,32,256,-1 9'           (carry .devcarry/<name>; other ab_turns.py options pass on)
set -uo pipefail
carried=$(cd "${1:?device_ab.sh: name the carried folder (.devcarry/<name>)}" && pwd)
shift
cd "$(dirname "$0")/../.."
source scripts/device_call.sh "$(basename "$carried").tgz"
for f in "$carried"/*.xz; do xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; done
HARNESS_HOLD=1 CUDA_MODULE_LOADING=EAGER timeout "$(left)" python3 scripts/harness/ab_turns.py \
  --binary "$carried/bk_{config}_{tree}" --timeout 60 "$@" --out "$OUT/ab.txt" > "$OUT/ab-summary.txt" 2>&1
rc=$?
echo "ab_turns rc=$rc $(el)s"
if [ $rc -ne 0 ] && [ -s "$OUT/ab.txt" ]; then
  echo "ab_turns.py ended early (rc=$rc); rows from the raw log so far, last pass begun: $(grep '^==' "$OUT/ab.txt" |
    tail -1)" >> "$OUT/ab-summary.txt"
  python3 scripts/harness/ab_turns.py --summarize "$OUT/ab.txt" >> "$OUT/ab-summary.txt" 2>&1
fi
grep -iE '^2\^[0-9]+ |WRONG|fail|ended early' "$OUT/ab-summary.txt" | head -60
echo "WRONG lines in the raw log: $(grep -c WRONG "$OUT/ab.txt")"
