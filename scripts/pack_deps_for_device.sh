#!/usr/bin/env bash
# Pack what the GPU machine lacks to build ReduceLab itself (GoogleTest, CLI11, nlohmann-json: headers, static
# libraries, CMake package files, all from this machine's Debian packages) into .devcarry/deps.tgz, with the
# commit of the tree. On the GPU machine, scripts/device_build.sh unpacks it and builds with all its cores
# (a cold build there takes minutes instead of the quarter hour it takes on a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .devcarry
echo "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- include src functors comparisons tests CMakeLists.txt || echo '-dirty')" \
  > .devcarry/COMMIT
tar czf .devcarry/deps.tgz -C / \
  usr/include/gtest usr/include/gmock usr/include/CLI usr/include/nlohmann \
  usr/lib/x86_64-linux-gnu/libgtest.a usr/lib/x86_64-linux-gnu/libgtest_main.a \
  usr/lib/x86_64-linux-gnu/libgmock.a usr/lib/x86_64-linux-gnu/libgmock_main.a \
  usr/lib/x86_64-linux-gnu/cmake/GTest usr/share/cmake/CLI11 usr/share/cmake/nlohmann_json
du -h .devcarry/deps.tgz
