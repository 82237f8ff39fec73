#!/usr/bin/env bash
# Makes the working tree that the device tool copies small enough to carry the CLI and the whole test_gpu beside it,
# and puts it back afterwards. Run here, around a device call:
#   bash scripts/device_tree.sh slim      # before the call: move the listed results aside (into .devcarry/aside/)
#   bash scripts/device_tree.sh restore   # after it: move them back (git status is clean again)
# The tool copies every tracked file (64 MiB in all, carried paths included). The listed files are issue 11's full
# sweeps and issue 12's tune records (about 25 MB) and issue 12's A/B records (2.5 MB), which no device step reads;
# without them the tree is about 21 MB, and pack_for_device.sh's CLI with the whole test_gpu (about 39 MB packed) fits
# beside it with room for a harness A/B's binaries (stop 77: 3.2 MB; with the A/B records in the tree, the tool
# refused that call, at 66.2 MB by pack_for_device.sh's byte count).
# `slim` refuses to run twice; `restore` refuses to overwrite a file that came back in the meantime.
set -euo pipefail
cd "$(dirname "$0")/.."
aside=.devcarry/aside
unneeded=(
  results/NVIDIA_H100_80GB_HBM3/results.json results/NVIDIA_H100_80GB_HBM3/results.csv
  results/NVIDIA_H200/results.json results/NVIDIA_H200/results.csv
  results/NVIDIA_H100_80GB_HBM3-lib/tune.json
)
for f in results/NVIDIA_H100_80GB_HBM3-lib/retune-*-tune.json; do unneeded+=("$f"); done
# issue 12's same-run A/B records and Nsight Compute archives (about 2.5 MB), which no device step reads either
while IFS= read -r f; do unneeded+=("$f"); done < <(git ls-files 'results/*-lib/*/*.csv' 'results/*-lib/*/*.tgz')
case ${1:-} in
  slim)
    [ -e "$aside" ] && { echo "device_tree.sh: $aside exists; restore first" >&2; exit 1; }
    for f in "${unneeded[@]}"; do
      [ -f "$f" ] || continue
      mkdir -p "$aside/$(dirname "$f")"
      mv "$f" "$aside/$f"
    done
    bytes=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1 || true)  # du fails on the files aside
    echo "tracked tree now $bytes bytes; restore after the call"
    ;;
  restore)
    [ -d "$aside" ] || { echo "device_tree.sh: nothing aside"; exit 0; }
    (cd "$aside" && find . -type f) | while read -r f; do
      f=${f#./}
      [ -e "$f" ] && { echo "device_tree.sh: $f is back already; $aside/$f left in place" >&2; continue; }
      mv "$aside/$f" "$f"
    done
    find "$aside" -depth -type d -empty -delete
    [ -d "$aside" ] && { echo "device_tree.sh: $aside still holds files" >&2; exit 1; }
    git status --short
    ;;
  *) echo "usage: bash scripts/device_tree.sh slim|restore" >&2; exit 2 ;;
esac
