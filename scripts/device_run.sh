#!/usr/bin/env bash
# The whole build-check cycle on the GPU machine, from a build folder made on a CPU machine and carried
# along (see ../shared/GPU.md): the full CTest suite, `reducelab list` and `reducelab check`, optionally the
# compute-sanitizer tools. Full logs go to $OUT (or ./device-out); a short summary is printed last.
#   bash scripts/device_run.sh [tests] [check] [sanitize] [compare] [compare-small]
# Results of `compare` go to results/<device>/ and come back as one tarball.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-device-out}
mkdir -p "$out"
build=${BUILD:-build}
export LD_LIBRARY_PATH="$PWD/$build/lib:${LD_LIBRARY_PATH:-}"
# The commit the carried binaries were built from (written by pack_for_device.sh); results record it.
export REDUCELAB_COMMIT=${REDUCELAB_COMMIT:-$(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
device_dir=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
steps=${*:-tests check}
summary="$out/summary.txt"
: > "$summary"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "binaries built at commit $REDUCELAB_COMMIT"
} | tee -a "$summary"

for step in $steps; do
  case $step in
    tests)
      (cd "$build" && ctest --output-on-failure --timeout 1500 --parallel 8) > "$out/ctest.log" 2>&1
      echo "ctest rc=$?" >> "$summary"
      grep -E "tests passed|tests failed|Total Test time" "$out/ctest.log" >> "$summary"
      grep -E "^\s+[0-9]+ - " "$out/ctest.log" | head -20 >> "$summary"
      ;;
    check)
      "$build/reducelab" list > "$out/list.txt" 2>&1
      "$build/reducelab" check > "$out/check.txt" 2>&1
      echo "check rc=$?" >> "$summary"
      ;;
    sanitize)
      for tool in memcheck racecheck synccheck initcheck; do
        # Every variant at a few sizes: plus/int32 and plus/float reach the commutative-only and float-only
        # variants, affine_compose the order-preserving ones, logical_or/uint8 the 1-byte atomic path.
        timeout ${SANITIZE_TIMEOUT:-135} compute-sanitizer --tool $tool --error-exitcode 9 "$build/reducelab" check \
          --ops plus,affine_compose,logical_or --types int32,float,affine32,uint8 --sizes 1,33,1000,70000 \
          --inputs random --offsets 0,1 > "$out/sanitize-$tool.log" 2>&1
        echo "compute-sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool.log" | tail -1)" >> "$summary"
      done
      ;;
    compare)
      "$build/reducelab" compare --out "results/$device_dir" > "$out/compare.txt" 2>&1
      echo "compare rc=$?" >> "$summary"
      tar czf "$out/results.tgz" "results/$device_dir"
      ;;
    compare-small)
      "$build/reducelab" compare --ops plus,affine_compose,argmax --types int32,float,affine32,float_idx32 \
        --sizes 2^10,2^22,2^28 --mode both --out "results/small" > "$out/compare-small.txt" 2>&1
      echo "compare-small rc=$?" >> "$summary"
      cp results/small/results.json "$out/compare_small_recorded.json"
      ;;
  esac
done
echo "----- summary -----"
cat "$summary"
