# The common start of a device call's script (the stop scripts kept under results/<device>-segmented/stopNN/, run from
# a carried .devcarry/<name>/ folder): sourced after the script has gone to the tree's root,
#   source scripts/device_call.sh <archive.tgz>
# It prints the GPU, and sets
#   el, left    seconds since the start, and seconds left of BUDGET (default 570) less 10 for the packing;
#   budget, dev BUDGET and the GPU's name as a folder name (NVIDIA_H100_80GB_HBM3);
#   OUT         a work folder under the device tool's $OUT, packed on exit into $OUT/<archive.tgz>: the tool brings
#               back at most 8 files (report folders come back inside it: device_run.sh's compare steps pack theirs
#               into $OUT).
device_call_archive=${1:?device_call.sh: name the archive}
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
budget=${BUDGET:-570}
left() { echo $(( budget - $(el) - 10 )); }
device_call_out=$OUT
export OUT=$device_call_out/w
mkdir -p "$OUT"
device_call_pack() {
  tar czf "$device_call_out/$device_call_archive" -C "$device_call_out" w
  rm -rf "$device_call_out/w"
}
trap device_call_pack EXIT
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
