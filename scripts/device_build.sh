#!/usr/bin/env bash
# On the GPU machine: unpack .devcarry/deps.tgz (scripts/pack_deps_for_device.sh) and build the whole project
# there into build/ (BUILD to change), with every core. Then scripts/device_run.sh runs from that build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
deps=$(mktemp -d)
tar xzf .devcarry/deps.tgz -C "$deps"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$deps/usr;$deps/usr/share/cmake;$deps/usr/lib/x86_64-linux-gnu/cmake" \
  -DGTEST_ROOT="$deps/usr" > "${OUT:-/tmp}/device-configure.log" 2>&1 || { tail -30 "${OUT:-/tmp}/device-configure.log"; exit 1; }
# TARGETS (e.g. "reducelab_cli test_gpu") builds only those: the CPU tests already ran here, and every minute
# of a held GPU machine counts against the session's device time.
cmake --build "$build" --parallel "$(nproc)" ${TARGETS:+--target $TARGETS} > "${OUT:-/tmp}/device-build.log" 2>&1 || { grep -m20 -B2 -A8 "error" "${OUT:-/tmp}/device-build.log"; exit 1; }
cp .devcarry/COMMIT "$build/COMMIT"
tail -1 "${OUT:-/tmp}/device-build.log"
