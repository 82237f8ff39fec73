#!/usr/bin/env bash
# Pack binaries built here for the GPU machine, which has no GoogleTest: the named ones (default build/reducelab),
# stripped, with the OpenMP runtime (libgomp, the one non-system shared library) and the commit they were built from,
# into .devcarry/build.tar.xz. Name that file in the device tool's `carry` and unpack it there with
# `tar xJf .devcarry/build.tar.xz`, which puts everything back under build/ for scripts/device_run.sh.
#   bash scripts/pack_for_device.sh [build/reducelab build/tests/test_gpu_segmented_library ...]
# The device tool carries at most 64 MiB, the working tree included: the CLI (~14 MB packed) and
# test_gpu_segmented_library (tests/CMakeLists.txt) fit beside the whole tree. The CLI with the whole test_gpu (~39 MB
# packed) fits beside it only with the results no device step reads moved aside first (scripts/device_tree.sh slim,
# then restore after the call); or test_gpu is built there (scripts/pack_deps_for_device.sh, scripts/device_build.sh).
# A test binary goes with its CTest list (build/tests/<name>[1]_tests.cmake, whose paths are this build folder's) and
# the folder's path (build/BUILD_DIR), so that device_run.sh's `tests` step runs it under CTest there.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- build/reducelab
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build/lib" .devcarry
for binary in "$@"; do
  [[ $binary == build/* && -f $binary && -x $binary ]] ||
    { echo "pack_for_device.sh: $binary is not an executable under build/" >&2; exit 2; }
  mkdir -p "$stage/$(dirname "$binary")"
  strip -o "$stage/$binary" "$binary"
  list="$(dirname "$binary")/$(basename "$binary")[1]_tests.cmake"
  [ -f "$list" ] && cp "$list" "$stage/$list"
done
echo "$PWD/build" > "$stage/build/BUILD_DIR"
cp -L "$(gcc -print-file-name=libgomp.so.1)" "$stage/build/lib/"
# The commit the binaries were built from: the device copy of the tree can carry other changes, so device_run.sh
# records this one, not the device copy's HEAD.
echo "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- include src functors comparisons tests CMakeLists.txt ||
  echo '-dirty')" > "$stage/build/COMMIT"
tar -C "$stage" -cf - build | xz -T0 -9 > .devcarry/build.tar.xz
packed=$(stat -c %s .devcarry/build.tar.xz)
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1 || true)  # du fails on files moved aside
limit=$((64 * 1024 * 1024))
echo "packed $* into .devcarry/build.tar.xz: $((packed / 1000000)) MB; with the tracked tree ($((tree / 1000000)) MB)" \
     "$(( (packed + tree) * 100 / limit )) % of the device tool's 64 MiB"
if [ $((packed + tree)) -gt $limit ]; then
  echo "pack_for_device.sh: too large to carry beside the working tree; pack fewer binaries, or move the results no" \
       "device step reads aside for the call (scripts/device_tree.sh slim) and pack again" >&2
  exit 1
fi
