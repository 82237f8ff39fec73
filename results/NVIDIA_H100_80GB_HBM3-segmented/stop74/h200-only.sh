#!/usr/bin/env bash
# stop 74: stop74/cycle.sh's steps (the read/write-mix ceiling, then device_run.sh tests segcompares segmented, with
# c91632d's binaries) on an H200 only, the H200's first compares since b9d9619 (stop 61); on any other GPU it stops
# at once. Carry .devcarry/s74f; slim the tree first.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case $gpu in
  *H200*) exec bash $d/cycle.sh ;;
  *) echo "$gpu: not an H200, nothing run" ;;
esac
