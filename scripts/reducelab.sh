#!/usr/bin/env bash
# One entry point on a fresh machine: installs what is missing (Debian packages), configures and builds
# (CMake preset "default": Release, sm_90, Ninja), then runs
#   main   the side-by-side job on the GPU: `reducelab compare` (default sweep, results under
#          results/latest/); it says plainly when there is no GPU and exits non-zero
#   test   the GoogleTest suite through CTest (GPU tests skip with their reason where there is no GPU)
# Extra arguments after `main` go to the reducelab command.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: bash scripts/reducelab.sh main|test [reducelab options]" >&2; exit 2; }
[ $# -ge 1 ] || usage
what=$1; shift

ensure_packages() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v ninja >/dev/null || missing+=(ninja-build)
  [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  [ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
  [ -f /usr/include/CLI/CLI.hpp ] || missing+=(libcli11-dev)
  command -v ccache >/dev/null || missing+=(ccache)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing missing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  if ! command -v nvcc >/dev/null; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH
    else echo "reducelab: nvcc (the CUDA Toolkit) is required and was not found" >&2; exit 1; fi
  fi
}

# cuobjdump and the nvdisasm it runs, for the SASS check (tests: sass.library_loads_in_flight): the CUDA Toolkit's
# if it has them, else NVIDIA's wheels from PyPI for nvcc's major version, unpacked into build/_tools/bin. Not fatal:
# the test skips without them.
ensure_cuobjdump() {
  local bin
  bin=$(dirname "$(command -v nvcc)")
  { command -v cuobjdump >/dev/null || [ -x "$bin/cuobjdump" ]; } &&
    { command -v nvdisasm >/dev/null || [ -x "$bin/nvdisasm" ]; } && return 0
  [ -x build/_tools/bin/cuobjdump ] && [ -x build/_tools/bin/nvdisasm ] && return 0
  local major tmp tool
  major=$(nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
  tmp=$(mktemp -d)
  echo "== fetching cuobjdump and nvdisasm (PyPI: nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm ${major}.*) for the SASS check"
  mkdir -p build/_tools/bin
  for tool in cuobjdump nvdisasm; do
    if python3 -m pip download -q --no-deps -d "$tmp/$tool" "nvidia-cuda-${tool}==${major}.*" &&
       python3 -m zipfile -e "$tmp/$tool"/*.whl "$tmp/$tool/unpacked"; then
      find "$tmp/$tool/unpacked" -type f -name "$tool" -exec cp {} build/_tools/bin/ \;
      chmod +x "build/_tools/bin/$tool" 2>/dev/null || true
    fi
  done
  rm -rf "$tmp"
  [ -x build/_tools/bin/cuobjdump ] && [ -x build/_tools/bin/nvdisasm ] || echo "== no cuobjdump/nvdisasm: the SASS check will skip"
}

build() {
  ensure_packages
  ensure_cuobjdump
  echo "== configuring and building (first build on 2 cores takes a while; ccache makes later ones fast)"
  cmake --preset default >/dev/null
  cmake --build --preset default --parallel "$(( $(nproc) + 1 ))"
}

case "$what" in
  main)
    build
    exec ./build/reducelab compare "$@"
    ;;
  test)
    build
    exec ctest --preset default --output-on-failure --parallel "$(nproc)"
    ;;
  *) usage ;;
esac
