#!/usr/bin/env bash
# Builds the binaries of a same-run A/B here (no GPU needed), one per source tree and configuration, stripped and xz'd
# into a folder that device_ab.sh runs on the GPU machine: scripts/harness/by_key_library_ab.cu against each tree's
# include/ (each tree checked out into a temporary git worktree), with the configurations below. Stops 62-79 typed
# this loop by hand each time.
#   bash scripts/harness/build_ab.sh .devcarry/<name> main=HEAD bs=lead/walk-both-selects [configs=fmax,dmax,int,aff,dbl]
#   bash scripts/harness/build_ab.sh .devcarry/<name> main=HEAD bs=HEAD+results/.../stop79/walk-both-selects.patch
# A tree is NAME=REV (a commit, branch or tag) or NAME=REV+PATCH (the patch applied onto REV with git apply). Each
# binary's stream kernel resources (ptxas -v) are printed, so that a spill shows before the call.
#   then, on the device: BUDGET=150 bash scripts/harness/device_ab.sh .devcarry/<name> --trees main,bs \
#                          --configs fmax,dmax,int,aff,dbl --sizes 26,24 --args '8,32,256,-1 9'
set -euo pipefail
out=${1:?build_ab.sh: name the output folder (.devcarry/<name>)}
shift
cd "$(dirname "$0")/../.."
root=$PWD
configs=fmax,dmax,int,aff,dbl
trees=()
for a in "$@"; do
  case $a in
    configs=*) configs=${a#configs=} ;;
    *=*) trees+=("$a") ;;
    *) echo "build_ab.sh: '$a' is neither NAME=REV[+PATCH] nor configs=LIST" >&2; exit 2 ;;
  esac
done
[ ${#trees[@]} -ge 2 ] || { echo "build_ab.sh: name at least two trees (NAME=REV or NAME=REV+PATCH)" >&2; exit 2; }

# A configuration's compile flags (by_key_library_ab.cu's header lists them).
flags_of() {
  case $1 in
    int) echo "" ;;
    dbl) echo "-DHARNESS_VALUE=double" ;;
    fmax) echo "-DHARNESS_VALUE=float -DHARNESS_MAX" ;;
    dmax) echo "-DHARNESS_VALUE=double -DHARNESS_MAX" ;;
    imax) echo "-DHARNESS_MAX" ;;
    aff) echo "-DHARNESS_AFFINE" ;;
    *) echo "build_ab.sh: unknown configuration '$1' (int, dbl, fmax, dmax, imax, aff)" >&2; return 2 ;;
  esac
}
for c in ${configs//,/ }; do flags_of "$c" > /dev/null; done

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'for t in "$work"/tree-*; do [ -d "$t" ] && git -C "$root" worktree remove --force "$t"; done; rm -rf "$work"' EXIT
for spec in "${trees[@]}"; do
  name=${spec%%=*} rev=${spec#*=} patch=
  if [[ $rev == *+* ]]; then patch=$root/${rev#*+}; rev=${rev%%+*}; fi
  tree=$work/tree-$name
  git worktree add -q --detach "$tree" "$rev"
  [ -z "$patch" ] || git -C "$tree" apply "$patch"
  echo "$name: $(git -C "$tree" rev-parse --short=12 HEAD)${patch:+ + $(basename "$patch")}"
  for c in ${configs//,/ }; do
    # shellcheck disable=SC2046  # the flags split into words on purpose
    (cd "$tree" && nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include -I scripts/harness -I . \
       $(flags_of "$c") scripts/harness/by_key_library_ab.cu comparisons/timing/stream_hold.cu \
       -o "$work/bk_${c}_$name" -Xptxas -v 2> "$work/ptxas_${c}_$name.txt")
    strip "$work/bk_${c}_$name"
    xz -9 -c "$work/bk_${c}_$name" > "$out/bk_${c}_$name.xz"
    echo "  $c: $(grep -A3 "Compiling entry function '_ZN9reducelab9segmented7kernels11stream_runs" \
      "$work/ptxas_${c}_$name.txt" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')"
  done
done
echo "$(ls "$out"/bk_*.xz | wc -l) binaries in $out ($(du -sh "$out" | cut -f1))"
