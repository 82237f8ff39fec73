#!/usr/bin/env bash
# Pack the build for the GPU machine, which has no GoogleTest or Google Benchmark: the binaries, CTest's files
# and libbenchmark (the one non-system shared library), without object files, into .devcarry/build.tgz
# (name .devcarry in the device tool's `carry`; unpack there with `tar xzf .devcarry/build.tgz`).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/lib .devcarry
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian build/lib/
tar czf .devcarry/build.tgz --exclude='*.o' --exclude='*.o.d' --exclude='.ninja_*' --exclude='*.a' build
du -h .devcarry/build.tgz
