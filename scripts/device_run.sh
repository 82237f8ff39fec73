#!/usr/bin/env bash
# The build-check-time cycle on the GPU machine, from a build folder made on a CPU machine and carried along
# (see ../shared/GPU.md). Full logs go to $OUT (or ./device-out); a short summary is printed last.
#   bash scripts/device_run.sh STEP...
# Steps:
#   tests            the whole CTest suite (of the build made here, or of test binaries carried with their lists)
#   check            `reducelab list` and `reducelab check` (default matrix), then the NaN inputs of max/min
#   sanitize         compute-sanitizer memcheck/racecheck/synccheck/initcheck over a check matrix of every variant
#   methods          the before/after table of the timing method (reducelab methods)
#   ncu              Nsight Compute beside ReduceLab on plus/int32 (NCU_VARIANTS, default CUB and two variants;
#                    NCU_SIZES, default 2^20 and 2^28; cold)
#   both             a small --mode both run, kept as $OUT/compare_both.json (the hot <= cold test's fixture)
#   quick            the quick default comparison, results/<device>-quick/
#   full1 full2      the two halves of the full sweep, results/<device>-part{1,2}/ (merged by `full-merge`)
#   full-merge       merge the two halves into results/<device>/ and pack it as $OUT/results.tgz
#   library          reducelab::reduce's GPU tests, and compute-sanitizer (all four tools) over them
#   libcompare       the quick sweep with the library, CUB and Thrust rows only, results/<device>-lib/
#   segmented        issue 13's GPU tests (library, ladder, baselines), then compute-sanitizer memcheck, racecheck
#                    and synccheck over the library's (SEG_SANITIZE_FILTER, a gtest filter, narrows them, e.g. to the
#                    tests of a changed kernel); `reducelab segmented check` (default layouts). Without test_gpu,
#                    the carried test_gpu_segmented_library (pack_for_device.sh): the library's tests only
#   segcompare       `reducelab segmented compare` of the library and CUB rows (the committed reports' command;
#                    SEG_VARIANTS and SEG_SAMPLES replace its --variants and --samples, SEG_ARGS adds options, e.g.
#                    --sizes 2^26) into results/<device>-segmented/ (SEG_OUT to change)
#   segcompares      both committed segmented reports: 2^26 into results/<device>-segmented-n26/, then the default
#                    size (2^24) into results/<device>-segmented/
#   multigpu         issue 14: test_gpu_multigpu, then `reducelab-multigpu compare` over every GPU (MG_ARGS adds
#                    options) into results/<device>-x<N>-multigpu/; NCCL_NVLS_ENABLE=0 unless set
#   pack             the last step of a call: everything under $OUT but summary.txt into $OUT/device-out.tgz, as the
#                    device tool brings back at most 8 files (stop 65 lost a ninth); copy an earlier invocation's
#                    summary.txt under another name before the next one, which starts it afresh
#   tune             `reducelab tune`: $OUT/tune.json, and $OUT/sm90.hpp to replace include/reducelab/tuning/sm90.hpp;
#                    TUNE_ARGS adds options (TUNE_ARGS=--quick: a smoke run)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-device-out}
mkdir -p "$out"
build=${BUILD:-build}
rl="$build/reducelab"
export LD_LIBRARY_PATH="$PWD/$build/lib:${LD_LIBRARY_PATH:-}"
# The commit the carried binaries were built from (written by pack_for_device.sh); results record it.
export REDUCELAB_COMMIT=${REDUCELAB_COMMIT:-$(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
device_dir=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
summary="$out/summary.txt"
: > "$summary"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv,noheader
  echo "binaries built at commit $REDUCELAB_COMMIT"
} | tee -a "$summary"
half1=plus,maximum,minimum,multiplies
half2=logical_or,bit_xor,abs_max,argmax,min_max,mean_variance,affine_compose

# `reducelab segmented compare` of the library and CUB rows into the folder $1 (log $out/$2.txt, the folder packed as
# $out/results-<folder>.tgz), further arguments added to the command.
segmented_compare() {
  local dir=$1 log=$out/$2.txt
  shift 2
  # Without --variants the compare times every ladder variant too, 25 samples each: more than a device call's
  # 10 minutes at 2^24 (stop 32).
  local variants=${SEG_VARIANTS:-'reducelab::segmented_reduce,cub::DeviceSegmentedReduce::Reduce,cub::DeviceSegmentedReduce::Sum|Max|Min,reducelab::reduce_by_key,cub::DeviceReduce::ReduceByKey'}
  "$rl" segmented compare --variants "$variants" --samples "${SEG_SAMPLES:-9}" "$@" --out "$dir" > "$log" 2>&1
  local rc=$?
  # The counts only from a report this run wrote: after a failed run the folder still holds the committed one.
  local counts="no new report"
  [ $rc -eq 0 ] && counts=$(grep -o '[0-9]* PASS, [0-9]* MISS' "$dir/segmented.md" 2>/dev/null)
  echo "segmented compare $(basename "$dir") rc=$rc $counts" >> "$summary"
  tar czf "$out/results-$(basename "$dir").tgz" "$dir"
}

# Test binaries carried from the CPU machine (pack_for_device.sh) come without CTest's files but with their test
# lists, whose paths are the CPU machine's build folder (build/BUILD_DIR): that path is linked to this build folder and
# a CTestTestfile.cmake that includes the lists is written, so the `tests` step runs them as CTest does there.
carried_test_lists() {
  [ -f "$build/CTestTestfile.cmake" ] || [ ! -f "$build/BUILD_DIR" ] && return 0
  local there
  there=$(cat "$build/BUILD_DIR")
  if [ ! -e "$there" ]; then
    mkdir -p "$(dirname "$there")"
    ln -s "$(cd "$build" && pwd)" "$there"
  fi
  find "$build/tests" -maxdepth 1 -name '*\[1\]_tests.cmake' -printf "include(\"$there/tests/%f\")\n" \
    > "$build/CTestTestfile.cmake"
}

for step in "$@"; do
  start=$SECONDS
  case $step in
    tests)
      carried_test_lists
      # Several test processes at once, as users run them: that is how the workspace-clear race of stop 30 showed.
      (cd "$build" && ctest --output-on-failure --timeout 1500 --parallel 8) > "$out/ctest.log" 2>&1
      echo "ctest rc=$?" >> "$summary"
      grep -E "tests passed|tests failed|Total Test time" "$out/ctest.log" >> "$summary"
      grep -E "^\s+[0-9]+ - |Skipped|Failed" "$out/ctest.log" | head -20 >> "$summary"
      ;;
    check)
      "$rl" list > "$out/list.txt" 2>&1
      "$rl" check > "$out/check.txt" 2>&1
      echo "check rc=$? $(tail -1 "$out/check.txt")" >> "$summary"
      "$rl" check --ops maximum,minimum,amax,amin,nanmax,nanmin --types float,double --inputs nan \
        --sizes 1,33,1000,1048583 > "$out/check-nan.txt" 2>&1
      echo "check --inputs nan rc=$? $(tail -1 "$out/check-nan.txt")" >> "$summary"
      ;;
    sanitize)
      for tool in memcheck racecheck synccheck initcheck; do
        # Every variant at a few sizes: plus/int32 and plus/float reach the commutative-only and float-only
        # variants, affine_compose the order-preserving ones, logical_or/uint8 the 1-byte atomic path.
        timeout ${SANITIZE_TIMEOUT:-135} compute-sanitizer --tool $tool --error-exitcode 9 "$rl" check \
          --ops plus,affine_compose,logical_or --types int32,float,affine32,uint8 --sizes 1,33,1000,70000 \
          --inputs random --offsets 0,1 > "$out/sanitize-$tool.log" 2>&1
        echo "compute-sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool.log" | tail -1)" >> "$summary"
      done
      ;;
    methods)
      "$rl" methods --out "$out" > "$out/methods.txt" 2>&1
      echo "methods rc=$?" >> "$summary"
      cat "$out/methods.txt" >> "$summary"
      ;;
    ncu)
      # --clock-control none: ncu would otherwise lock the clocks to base, and this machine's clocks are not ours
      # to change. The reference timings come from a normal held-stream run of the same rows.
      tmp=$(mktemp -d)
      variants=${NCU_VARIANTS:-"cub::DeviceReduce::Reduce multi_pass vectorized_loads"}
      sizes=${NCU_SIZES:-"2^20 2^28"}
      "$rl" compare --ops plus --types int32 --sizes "${sizes// /,}" --variants "${variants// /,}" --no-confirm \
        --out "$tmp/ref" > "$out/ncu-ref.txt" 2>&1
      for n in $sizes; do
        for v in $variants; do
          tag="$(echo "$v" | tr -cd 'A-Za-z0-9_')_${n/^/_}"
          ncu --csv --page raw --print-units base --clock-control none --cache-control all \
            --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active \
            "$rl" compare --ops plus --types int32 --sizes "$n" --variants "$v" --samples 5 --no-hold --no-confirm \
            --out "$tmp/$tag" > "$tmp/ncu_$tag.csv" 2> "$tmp/ncu_$tag.err"
          cp "$tmp/$tag/results.json" "$tmp/ncu_$tag.json"
        done
      done
      python3 scripts/ncu_agreement.py "$tmp/ref/results.json" "$tmp"/ncu_*.csv > "$out/ncu-agreement.md" 2>&1
      echo "ncu rc=$?" >> "$summary"
      cat "$out/ncu-agreement.md" >> "$summary"
      tar czf "$out/ncu.tgz" -C "$tmp" . 2>/dev/null
      ;;
    both)
      "$rl" compare --ops plus,maximum,argmax,affine_compose --sizes 2^10,2^14,2^18,2^22 --mode both --samples 15 \
        --no-confirm --out "$out/both" > "$out/compare-both.txt" 2>&1
      echo "compare --mode both rc=$?" >> "$summary"
      cp "$out/both/results.json" "$out/compare_both.json"
      rm -rf "$out/both"
      ;;
    quick)
      "$rl" compare --out "results/$device_dir-quick" > "$out/compare-quick.txt" 2>&1
      echo "compare (quick) rc=$?" >> "$summary"
      sed -n '/^functor\/type/,$p' "$out/compare-quick.txt" >> "$summary"
      tar czf "$out/results-quick.tgz" "results/$device_dir-quick"
      ;;
    full1|full2)
      ops=$half1; [ "$step" = full2 ] && ops=$half2
      part=${step#full}
      "$rl" compare --full --ops "$ops" --out "results/$device_dir-part$part" > "$out/compare-part$part.txt" 2>&1
      echo "compare --full part $part rc=$?" >> "$summary"
      sed -n '/^functor\/type/,$p' "$out/compare-part$part.txt" | grep -E "2\^(10|16|20|24|28) |^functor|clock guard|rows FAILED" >> "$summary"
      tar czf "$out/results-part$part.tgz" "results/$device_dir-part$part"
      ;;
    full-merge)
      "$rl" report "results/$device_dir-part1/results.json" "results/$device_dir-part2/results.json" \
        --out "results/$device_dir" > "$out/merge.txt" 2>&1
      echo "merge rc=$? $(head -1 "$out/merge.txt")" >> "$summary"
      tar czf "$out/results.tgz" "results/$device_dir"
      ;;
    tune)
      "$rl" tune ${TUNE_ARGS:-} --out "$out/tune.json" --write-header "$out/sm90.hpp" > "$out/tune.txt" 2>&1
      echo "tune rc=$? $(tail -1 "$out/tune.txt")" >> "$summary"
      sed -n '/^class /,/^geomean, worst/p' "$out/tune.txt" >> "$summary"
      grep -E "FAILED" "$out/tune.txt" | head -10 >> "$summary"
      ;;
    library)
      # reducelab::reduce alone: its GPU tests, then each compute-sanitizer tool over them (not the 240-launch
      # concurrency test, which the tools serialize anyway, nor the 512 MiB input of the table's pass blocks, whose
      # kernel the small-policy pass-block tests cover). initcheck: the library clears every workspace it
      # allocates, and the tests clear the one they pass in, because the last block polls words no block has written
      # yet (include/reducelab/grid/tagged_partials.cuh); a fresh caller's workspace would be reported.
      "$build/tests/test_gpu" --gtest_filter='LibraryReduce.*' > "$out/library-tests.log" 2>&1
      echo "library tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$out/library-tests.log" | tr '\n' ' ')" >> "$summary"
      for tool in memcheck racecheck synccheck initcheck; do
        timeout ${SANITIZE_TIMEOUT:-150} compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/test_gpu" \
          --gtest_filter='LibraryReduce.*:-*Reproducible*:*ConcurrentStreams*:*LargeInputs*' > "$out/sanitize-library-$tool.log" 2>&1
        echo "compute-sanitizer $tool (library) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-library-$tool.log" | tail -1)" >> "$summary"
      done
      ;;
    libcompare)
      # The quick sweep's functors and types, the library against the libraries only (fast; the full quick
      # step times every backend).
      "$rl" compare --variants 'reducelab::reduce,reducelab::reduce(host),cub::DeviceReduce::Reduce,thrust::reduce,cub::DeviceScan::InclusiveScan(last),thrust::inclusive_scan(last),thrust::inclusive_scan(host)' \
        --no-confirm ${LIBCOMPARE_ARGS:-} --out "results/$device_dir-lib" > "$out/compare-lib.txt" 2>&1
      echo "compare (library) rc=$?" >> "$summary"
      sed -n '/^reducelab::reduce$/,/^functor\/type  *n  *mode  *best/p' "$out/compare-lib.txt" >> "$summary"
      sed -n '/^Goals/,$p' "$out/compare-lib.txt" | grep -E "MISS|PASS|NO DATA" | grep -v PASS | head -40 >> "$summary"
      tar czf "$out/results-lib.tgz" "results/$device_dir-lib"
      ;;
    segmented)
      seg_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*:SegmentedVariants.*:ReduceByKeyVariants.*:SegmentedBaselines.*'
      seg_tests="$build/tests/test_gpu"
      if [ ! -x "$seg_tests" ] && [ -x "$build/tests/test_gpu_segmented_library" ]; then
        # Carried binaries (pack_for_device.sh): the library's tests alone, without the ladder's and baselines'.
        seg_tests="$build/tests/test_gpu_segmented_library"
        seg_filter='LibrarySegmentedReduce.*:LibraryReduceByKey.*'
        echo "segmented: test_gpu_segmented_library (the library's tests only: no test_gpu here)" >> "$summary"
      fi
      "$seg_tests" --gtest_filter="$seg_filter" > "$out/segmented-tests.log" 2>&1
      echo "segmented tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$out/segmented-tests.log" | tr '\n' ' ')" >> "$summary"
      grep -E '^\[  FAILED' "$out/segmented-tests.log" | head -10 >> "$summary"
      for tool in memcheck racecheck synccheck; do
        # racecheck tracks every shared-memory access: on the H100 it needed more than 60 s where the others took less
        limit=${SANITIZE_TIMEOUT:-150}
        [ $tool = racecheck ] && limit=${RACECHECK_TIMEOUT:-$((limit * 2))}
        timeout $limit compute-sanitizer --tool $tool --error-exitcode 9 "$seg_tests" \
          --gtest_filter="${SEG_SANITIZE_FILTER:-LibrarySegmentedReduce.*:LibraryReduceByKey.*}" \
          > "$out/sanitize-segmented-$tool.log" 2>&1
        echo "compute-sanitizer $tool (segmented${SEG_SANITIZE_FILTER:+: $SEG_SANITIZE_FILTER}) rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$out/sanitize-segmented-$tool.log" | tr '\n' ' ')$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-segmented-$tool.log" | tail -1)" >> "$summary"
      done
      "$rl" segmented check > "$out/segmented-check.txt" 2>&1
      echo "segmented check rc=$? $(tail -1 "$out/segmented-check.txt")" >> "$summary"
      grep '^FAIL' "$out/segmented-check.txt" | head -10 >> "$summary"
      ;;
    segcompare)
      # SEG_OUT: the report's folder (default results/<device>-segmented; the committed 2^26 runs go to ...-n26).
      segmented_compare "${SEG_OUT:-results/$device_dir-segmented}" segmented-compare ${SEG_ARGS:-}
      tail -40 "$out/segmented-compare.txt" >> "$summary"
      ;;
    segcompares)
      # Both committed reports, 2^26 first (the size whose figures are the kernels' own), then 2^24.
      segmented_compare "results/$device_dir-segmented-n26" segmented-compare-n26 --sizes 2^26 ${SEG_ARGS:-}
      segmented_compare "results/$device_dir-segmented" segmented-compare ${SEG_ARGS:-}
      ;;
    multigpu)
      # Issue 14 (needs the NCCL part built: test_gpu_multigpu and reducelab-multigpu targets): the tests, then the
      # comparison over every visible GPU (MG_ARGS adds options) into results/<device>-x<N>-multigpu/.
      export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
      # Binaries built here link the wheel's libnccl.so.2; there the same version is in the Python environment.
      if nccl_lib=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null); then
        export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$nccl_lib"
      fi
      gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
      timeout ${MG_TEST_TIMEOUT:-300} "$build/tests/test_gpu_multigpu" > "$out/multigpu-tests.log" 2>&1
      echo "multigpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/multigpu-tests.log" | head -3 | tr '\n' ' ')" >> "$summary"
      grep -E '^\[  FAILED' "$out/multigpu-tests.log" | head -10 >> "$summary"
      "$build/reducelab-multigpu" compare --gpus "$gpus" ${MG_ARGS:-} --out "results/$device_dir-x$gpus-multigpu" \
        > "$out/multigpu-compare.txt" 2>&1
      echo "multigpu compare rc=$?" >> "$summary"
      sed -n '/^part /,$p' "$out/multigpu-compare.txt" >> "$summary"
      tar czf "$out/results-multigpu.tgz" "results/$device_dir-x$gpus-multigpu"
      ;;
    pack)
      (cd "$out" && find . -type f ! -name summary.txt ! -name device-out.tgz -print0 |
         tar czf device-out.tgz --null -T - --remove-files)
      echo "pack rc=$? $(tar tzf "$out/device-out.tgz" | wc -l) files into device-out.tgz" >> "$summary"
      ;;
    *) echo "unknown step '$step'" >> "$summary" ;;
  esac
  echo "  ($step: $((SECONDS - start)) s)" >> "$summary"
done
echo "----- summary -----"
cat "$summary"
