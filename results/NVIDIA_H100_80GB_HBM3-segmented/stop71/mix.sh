#!/usr/bin/env bash
# stop 71, third call: the ceiling of a pass with reduce_by_key's mix of reads and writes (scripts/harness/
# read_write_mix.cu), 2^26 and 2^24, runs of 1, 8, 32 and 256, int32 keys with int32 and double values. Carry
# .devcarry/s71; slim the tree first. Into $OUT/s71mix.tgz.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
cd "$d/../.."
source scripts/device_call.sh s71mix.tgz
for lg in 26 24; do
  HARNESS_LOG2N=$lg timeout 60 $d/read_write_mix 1,8,32,256 9 > $OUT/mix-2e$lg.txt 2>&1
  echo "2^$lg rc=$? $(el)s"; cat $OUT/mix-2e$lg.txt
done
