#!/usr/bin/env bash
# Prepared at stop 71 for the next call on either GPU. First, on any GPU, the read/write-mix ceiling
# (scripts/harness/read_write_mix.cu, stop71/mix.sh's runs: 2^26 and 2^24, runs of 1, 8, 32 and 256, int32 keys
# with int32 and double values; about 10 s). Then, on an H200 with .devcarry/s68b carried (main's CLI, test_gpu and
# concurrent_hang; their kernels are main's), with the time left: the whole test_gpu, both segmented compares (the
# H200's are b9d9619's, stop 61), then device_run.sh's segmented step (memcheck, racecheck and synccheck over the
# stream path's tests, `reducelab segmented check`).
# Slim the tree first; carry .devcarry/s72 (and .devcarry/s68b for an H200). Into $OUT/s72.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s72.tgz
for lg in 26 24; do
  HARNESS_LOG2N=$lg timeout 60 $d/read_write_mix 1,8,32,256 9 > $OUT/mix-2e$lg.txt 2>&1
  echo "mix 2^$lg rc=$? $(el)s"; cat $OUT/mix-2e$lg.txt
done
[[ $dev == *H200* ]] || exit 0
[ -f .devcarry/s68b/build.tar.xz ] || { echo "an H200, but main's binaries were not carried"; exit 0; }
tar xJf .devcarry/s68b/build.tar.xz && echo "binaries: $(cat build/COMMIT)"
# device_run.sh's segmented step runs the segmented tests, then its sanitizers over the stream path's tests alone
SEG_SANITIZE_FILTER='LibraryReduceByKey.Stream*:LibraryReduceByKey.EntrySends*' \
  timeout $(left) bash scripts/device_run.sh tests segcompares segmented
echo "device_run.sh tests segcompares segmented rc=$? $(el)s"
