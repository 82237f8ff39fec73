#!/usr/bin/env bash
# Pack the build for the GPU machine, which has no GoogleTest: the binaries, CTest's files, the OpenMP runtime
# (libgomp, the one non-system shared library) and the commit they were built from, without object files,
# into .devcarry/build.tgz (name .devcarry in the device tool's `carry`; unpack there with
# `tar xzf .devcarry/build.tgz`).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/lib .devcarry
cp -L "$(gcc -print-file-name=libgomp.so.1)" build/lib/
# The commit the binaries were built from: the device copy of the tree can carry other changes, so
# device_run.sh records this one, not the device copy's HEAD.
echo "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- src functors comparisons tests CMakeLists.txt || echo '-dirty')" \
  > build/COMMIT
tar czf .devcarry/build.tgz --exclude='*.o' --exclude='*.o.d' --exclude='.ninja_*' --exclude='*.a' build
du -h .devcarry/build.tgz
