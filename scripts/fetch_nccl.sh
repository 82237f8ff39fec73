#!/usr/bin/env bash
# Download NCCL (the nvidia-nccl-cu13 wheel, a zip holding include/nccl.h and lib/libnccl.so.2) and unpack it into
# build-deps/nccl/, which git ignores (/build* in .gitignore). Prints the NCCL_ROOT to configure with.
#   bash scripts/fetch_nccl.sh [VERSION]      (default 2.28.9)
set -euo pipefail
version="${1:-2.28.9}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/build-deps/nccl"
wheels="$root/build-deps/wheels"
mkdir -p "$wheels"
python3 -m pip download --no-deps --only-binary=:all: --dest "$wheels" "nvidia-nccl-cu13==$version"
wheel="$(ls -t "$wheels"/nvidia_nccl_cu13-"$version"-*.whl | head -n 1)"
rm -rf "$dest"
mkdir -p "$dest"
python3 -m zipfile -e "$wheel" "$dest"
nccl_root="$dest/nvidia/nccl"
test -f "$nccl_root/include/nccl.h" && test -f "$nccl_root/lib/libnccl.so.2" ||
  { echo "fetch_nccl: $wheel holds no include/nccl.h or lib/libnccl.so.2" >&2; exit 1; }
echo "NCCL $version unpacked. Configure with:"
echo "  cmake -S $root -B build-nccl -DNCCL_ROOT=$nccl_root"
echo "NCCL_ROOT=$nccl_root"
