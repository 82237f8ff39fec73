// Same-run harness for reducelab::reduce_by_key: the one-pass kernel (segmented/kernels/reduce_runs.cuh) in a few
// tile shapes, against the library's entry and CUB. Not part of the build or of the tests; what it printed is in
// results/NVIDIA_H100_80GB_HBM3-segmented/reduce-by-key-one-pass.txt (and by-key-longer-tiles.txt, stop 47); the heads
// and unique rows below, stop 59's, in results/NVIDIA_H200-segmented/by-key-heads-then-segmented.txt.
//
//   library      reducelab::reduce_by_key (printed as three_pass in the runs at e1e917b, when the entry was the
//                three-pass path: DeviceSelect of the run heads, a key gather, the merge-path pass over the offsets)
//   cub          cub::DeviceReduce::ReduceByKey (its temporary storage allocated once, outside the timing)
//   one_pass_TxI the one-pass kernel with T threads of I items (workspace from the stream's pool at each call, as
//                the library does)
//   heads_then_segmented  stop 59's lead for long runs: cub::DeviceSelect::If over the indices selects the run heads
//                (i == 0 or keys[i - 1] != keys[i]) into an offsets array and counts them, a small kernel gathers
//                the runs' keys and closes the last run (offsets[S] = n), then reducelab::segmented_reduce reduces the
//                values over those offsets. The host passes the run count S to the gather and to segmented_reduce from
//                the input it generated (an oracle: an entry could not know it without reading it back), so the row
//                is what the two passes cost, not what an entry built on them would; the select's temporary storage
//                is allocated once, outside the timing
//   heads_only, segmented_only  its first two steps and its last step, timed apart
//   unique_then_segmented  the same with cub::DeviceSelect::UniqueByKey over the keys and the indices (a counting
//                iterator): the runs' keys and their heads in one select, then a kernel that closes the last run
//   unique_only  its select and closing kernel alone
//
// Two other tile schedules were measured with this harness at stop 40 and rejected; their rows and kernels were removed
// afterwards and stay in git: a warp per tile (rows warp_WxI and rows_WxG, scripts/harness/by_key_warp_tiles.cuh at
// 1426b7b; results/NVIDIA_H100_80GB_HBM3-segmented/by-key-warp-tiles.txt) and the one-pass tile in a resident grid
// with the next tile copied ahead (rows pipe_TxIbB, scripts/harness/by_key_pipelined.cuh at 6ef681e;
// by-key-pipelined.txt).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include \
//                     scripts/harness/reduce_by_key_one_pass.cu -o reduce_by_key_one_pass
//                   (-DHARNESS_VALUE=double -DHARNESS_VALUE_BYTES=8 for double values)
//   run:            ./reduce_by_key_one_pass [LENGTHS] [SAMPLES] [VARIANTS]
//
// 2^24 int32 keys and 2^24 values (HARNESS_LOG2N sets another power of two, HARNESS_N any n; int32, or
// -DHARNESS_VALUE=double), plus. LENGTHS: uniform run lengths, or -1 (random lengths 1..64) and -2 (random lengths
// 1..3000). Cold: a 256 MiB memset and read between samples; CUDA events around each call; the median of SAMPLES
// after one unrecorded call, whose output (keys, values, count) is checked against the host. % of peak counts keys
// and values in, the runs' keys and values out.
#include "harness_common.cuh"
#include "reducelab/segmented_reduce.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>


#ifndef HARNESS_VALUE
#define HARNESS_VALUE int
#endif
#ifndef HARNESS_VALUE_BYTES
#define HARNESS_VALUE_BYTES 4
#endif
using value_t = HARNESS_VALUE;
using key_t_ = int;

using harness_common::sum;

using harness_common::touch;

struct io {
  const key_t_* keys;
  const value_t* values;
  long long n;
  key_t_* keys_out;
  value_t* values_out;
  int* num_runs;
  void* cub_temp;
  std::size_t cub_bytes;
  cudaStream_t stream;
  int* offsets;             // heads_then_segmented: the run heads, then n (S + 1 ints)
  void* select_temp;
  std::size_t select_bytes;
  long long runs;           // the run count, from the host's input (see heads_then_segmented above)
};

/// Whether item i starts a run (heads_then_segmented's select).
struct is_head {
  const key_t_* keys;
  __device__ bool operator()(int i) const { return i == 0 || keys[i - 1] != keys[i]; }
};

/// The runs' keys, read at their heads, and the last run's end.
__global__ void gather_run_keys(const key_t_* keys, const int* offsets, long long runs, long long n, key_t_* keys_out,
                                int* offsets_end) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r < runs) keys_out[r] = keys[offsets[r]];
  if (r == 0) *offsets_end = static_cast<int>(n);
}

void select_heads(const io& a) {
  std::size_t bytes = a.select_bytes;
  CHECK_CUDA(cub::DeviceSelect::If(a.select_temp, bytes, thrust::counting_iterator<int>(0), a.offsets, a.num_runs,
                                   static_cast<int>(a.n), is_head{a.keys}, a.stream));
  const int threads = 256;
  const long long blocks = (a.runs + threads - 1) / threads;
  gather_run_keys<<<static_cast<unsigned>(blocks > 0 ? blocks : 1), threads, 0, a.stream>>>(
      a.keys, a.offsets, a.runs, a.n, a.keys_out, a.offsets + a.runs);
}

/// The last run's end, once the select has counted the runs.
__global__ void close_last_run(const int* num_runs, long long n, int* offsets) { offsets[*num_runs] = static_cast<int>(n); }

void unique_heads(const io& a) {
  std::size_t bytes = a.select_bytes;
  CHECK_CUDA(cub::DeviceSelect::UniqueByKey(a.select_temp, bytes, a.keys, thrust::counting_iterator<int>(0),
                                            a.keys_out, a.offsets, a.num_runs, static_cast<int>(a.n), a.stream));
  close_last_run<<<1, 1, 0, a.stream>>>(a.num_runs, a.n, a.offsets);
}

void segmented_over_heads(const io& a) {
  reducelab::segmented_reduce(a.values, a.offsets, a.offsets + 1, static_cast<std::size_t>(a.runs), a.values_out,
                              sum{}, a.stream);
}

/// The library's kernel at Threads x Items; MinBlocks, if given, replaces the tuning's __launch_bounds__ minimum.
template <int Threads, int Items, int MinBlocks = 0>
void one_pass(const io& a) {
  reducelab::segmented::detail::reduce_runs_one_pass<Threads, Items, MinBlocks>(
      a.keys, a.values, a.n, a.keys_out, a.values_out, a.num_runs, sum{}, cuda::std::equal_to<>{}, a.stream);
}

int main(int argc, char** argv) {
  // HARNESS_LOG2N=26: 2^26 pairs instead of 2^24; HARNESS_N: any n
  const char* log2n = std::getenv("HARNESS_LOG2N");
  const char* any_n = std::getenv("HARNESS_N");
  const long long n = any_n ? std::atoll(any_n) : 1LL << (log2n ? std::atoi(log2n) : 24);
  const std::vector<long long> lengths =
      harness_common::parse_lengths(argc, argv, {1, 2, 8, 32, 256, 4096, 1LL << 20, -1, -2});
  const int samples = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::string only = argc > 3 ? argv[3] : "";

  struct row {
    const char* name;
    std::function<void(const io&)> fn;
  };
  const std::vector<row> rows = {
      {"library",
       [](const io& a) {
         reducelab::reduce_by_key(a.keys, a.values, static_cast<std::size_t>(a.n), a.keys_out, a.values_out,
                                  a.num_runs, sum{}, a.stream);
       }},
      {"cub",
       [](const io& a) {
         std::size_t bytes = a.cub_bytes;
         CHECK_CUDA(cub::DeviceReduce::ReduceByKey(a.cub_temp, bytes, a.keys, a.keys_out, a.values, a.values_out,
                                                   a.num_runs, sum{}, a.n, a.stream));
       }},
      {"heads_then_segmented",
       [](const io& a) {
         select_heads(a);
         segmented_over_heads(a);
       }},
      {"heads_only", select_heads},
      {"unique_then_segmented",
       [](const io& a) {
         unique_heads(a);
         segmented_over_heads(a);
       }},
      {"unique_only", unique_heads},
      {"segmented_only", segmented_over_heads},
      {"one_pass_256x8", one_pass<256, 8>},
      {"one_pass_256x12", one_pass<256, 12>},
      {"one_pass_256x13", one_pass<256, 13>},
      {"one_pass_256x14", one_pass<256, 14>},
      {"one_pass_192x18", one_pass<192, 18>},
#if HARNESS_VALUE_BYTES <= 4  // 256 x 16 doubles stage more than 48 KiB of static shared memory
      {"one_pass_256x16", one_pass<256, 16>},
#endif
      {"one_pass_128x8", one_pass<128, 8>},
      {"one_pass_128x12", one_pass<128, 12>},
      {"one_pass_128x16", one_pass<128, 16>},
      {"one_pass_128x20", one_pass<128, 20>},
      {"one_pass_128x24", one_pass<128, 24>},
      {"one_pass_128x26", one_pass<128, 26>},
      {"one_pass_128x28", one_pass<128, 28>},
      {"one_pass_128x30", one_pass<128, 30>},
#if HARNESS_VALUE_BYTES <= 4  // 128 x 32 doubles stage more than 48 KiB of static shared memory
      {"one_pass_128x32", one_pass<128, 32>},
#endif
      {"one_pass_64x16", one_pass<64, 16>},
      {"one_pass_64x24", one_pass<64, 24>},
#if HARNESS_VALUE_BYTES <= 4
      // Stop 46's lead for 8-byte pairs: more resident blocks for smaller tiles, now that the guarded tile no longer
      // sets the registers. ptxas (sm_90, this harness's sum): 20 items under 6 blocks 80 registers, no spills; 22
      // and 24 spill 16 and 48 bytes; 26 under 5 (the library's shape) 96, none. Measured at stop 47 with the rows
      // below (results/NVIDIA_H100_80GB_HBM3-segmented/by-key-longer-tiles.txt): rejected.
      {"one_pass_128x20b6", one_pass<128, 20, 6>},
      {"one_pass_128x22b6", one_pass<128, 22, 6>},
      {"one_pass_128x24b6", one_pass<128, 24, 6>},
      {"one_pass_128x26b5", one_pass<128, 26, 5>},
      // Stop 47: the other way, longer tiles under 4 blocks (128 x 20 under 6 was 1.05-1.10x slower than the library
      // at 2^26 on the H100; 128 x 28 under 5 0-5 % faster at 2^26 and 0-5 % slower at 2^24, by machine).
      {"one_pass_128x32b4", one_pass<128, 32, 4>},
      {"one_pass_128x36b4", one_pass<128, 36, 4>},
      {"one_pass_128x40b4", one_pass<128, 40, 4>},
#endif
  };

  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double peak_gbps = harness_common::peak_gb_per_s();  // the report's peak: 2 x memory clock x bus width
  std::printf("%s, peak %.0f GB/s, n = %lld, value %zu bytes, key 4 bytes, %d samples\n", prop.name, peak_gbps, n,
              sizeof(value_t), samples);

  std::vector<value_t> h(n);
  unsigned x = 12345;
  for (auto& v : h) v = static_cast<value_t>(static_cast<int>((x = x * 1664525u + 1013904223u) >> 8) % 1000 - 500);
  key_t_* keys;
  value_t* values;
  key_t_* keys_out;
  value_t* values_out;
  int *num_runs, *sink;
  int4* flush;
  const std::size_t flush_n = (std::size_t{256} << 20) / 16;
  CHECK_CUDA(cudaMalloc(&keys, n * sizeof(key_t_)));
  CHECK_CUDA(cudaMalloc(&values, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&keys_out, n * sizeof(key_t_)));
  CHECK_CUDA(cudaMalloc(&values_out, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&num_runs, 8));
  CHECK_CUDA(cudaMalloc(&flush, flush_n * 16));
  CHECK_CUDA(cudaMalloc(&sink, 4));
  CHECK_CUDA(cudaMemcpy(values, h.data(), n * sizeof(value_t), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::size_t cub_bytes = 0;
  CHECK_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, cub_bytes, keys, keys_out, values, values_out, num_runs, sum{},
                                            n, stream));
  void* cub_temp;
  CHECK_CUDA(cudaMalloc(&cub_temp, cub_bytes));
  int* offsets;
  CHECK_CUDA(cudaMalloc(&offsets, (n + 1) * sizeof(int)));
  std::size_t select_bytes = 0;
  CHECK_CUDA(cub::DeviceSelect::If(nullptr, select_bytes, thrust::counting_iterator<int>(0), offsets, num_runs,
                                   static_cast<int>(n), is_head{keys}, stream));
  std::size_t unique_bytes = 0;
  CHECK_CUDA(cub::DeviceSelect::UniqueByKey(nullptr, unique_bytes, keys, thrust::counting_iterator<int>(0), keys_out,
                                            offsets, num_runs, static_cast<int>(n), stream));
  if (unique_bytes > select_bytes) select_bytes = unique_bytes;  // one allocation serves both selects
  void* select_temp;
  CHECK_CUDA(cudaMalloc(&select_temp, select_bytes));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  io a{keys, values, n, keys_out, values_out, num_runs, cub_temp, cub_bytes, stream, offsets, select_temp,
       select_bytes, 0};

  for (long long length : lengths) {
    // Run r has key r * 7 (neighbours always differ); its length is `length` or drawn at random.
    const std::vector<long long> starts = harness_common::run_starts(n, length);
    const long long S = static_cast<long long>(starts.size());
    std::vector<key_t_> hk(n);
    std::vector<key_t_> want_keys;
    std::vector<value_t> want_values;
    for (long long r = 0; r < S; ++r) {
      const long long end = r + 1 < S ? starts[r + 1] : n;
      long long s = 0;
      for (long long j = starts[r]; j < end; ++j) {
        hk[j] = static_cast<key_t_>(r * 7);
        s += static_cast<long long>(h[j]);
      }
      want_keys.push_back(static_cast<key_t_>(r * 7));
      want_values.push_back(std::is_integral_v<value_t>
                                ? static_cast<value_t>(static_cast<unsigned long long>(s) & 0xffffffffULL)
                                : static_cast<value_t>(s));
    }
    a.runs = S;
    CHECK_CUDA(cudaMemcpy(keys, hk.data(), n * sizeof(key_t_), cudaMemcpyHostToDevice));
    select_heads(a);  // segmented_only reads the heads, whichever rows run before it
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const double bytes = n * double(sizeof(key_t_) + sizeof(value_t)) + S * double(sizeof(key_t_) + sizeof(value_t));
    std::vector<std::vector<float>> times(rows.size());
    std::vector<key_t_> got_keys(S);
    std::vector<value_t> got_values(S);
    for (int k = 0; k <= samples; ++k) {
      for (std::size_t r = 0; r < rows.size(); ++r) {
        if (!only.empty() && only.find(rows[r].name) == std::string::npos) continue;
        CHECK_CUDA(cudaMemsetAsync(flush, k, flush_n * 16, stream));
        touch<<<528, 512, 0, stream>>>(flush, flush_n, sink);
        if (k == 0) {
          CHECK_CUDA(cudaMemsetAsync(keys_out, 0x55, S * sizeof(key_t_), stream));
          CHECK_CUDA(cudaMemsetAsync(values_out, 0x55, S * sizeof(value_t), stream));
          CHECK_CUDA(cudaMemsetAsync(num_runs, 0x55, 8, stream));
        }
        CHECK_CUDA(cudaEventRecord(start, stream));
        rows[r].fn(a);
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaGetLastError());
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (k > 0) times[r].push_back(ms * 1000);
        if (k == 0) {
          int runs = -1;
          CHECK_CUDA(cudaMemcpy(&runs, num_runs, 4, cudaMemcpyDeviceToHost));
          CHECK_CUDA(cudaMemcpy(got_keys.data(), keys_out, S * sizeof(key_t_), cudaMemcpyDeviceToHost));
          CHECK_CUDA(cudaMemcpy(got_values.data(), values_out, S * sizeof(value_t), cudaMemcpyDeviceToHost));
          // heads_only writes the keys and the count, segmented_only the values: each is checked on what it writes.
          const std::string name = rows[r].name;
          const bool keys_and_count = name != "segmented_only";
          const bool values_too = name != "heads_only" && name != "unique_only";
          long long bad = 0, first = -1;
          for (long long s = 0; s < S; ++s)
            if (((keys_and_count && got_keys[s] != want_keys[s]) || (values_too && got_values[s] != want_values[s])) &&
                bad++ == 0)
              first = s;
          if ((keys_and_count && runs != S) || bad > 0)
            std::printf("  %s L=%lld WRONG: count %d (want %lld), %lld runs wrong, first %lld: key %d value %.0f, want "
                        "key %d value %.0f\n",
                        rows[r].name, length, runs, S, bad, first, first >= 0 ? got_keys[first] : 0,
                        first >= 0 ? static_cast<double>(got_values[first]) : 0.0,
                        first >= 0 ? want_keys[first] : 0, first >= 0 ? static_cast<double>(want_values[first]) : 0.0);
        }
      }
    }
    std::printf("L=%-8lld S=%-9lld", length, S);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (times[r].empty()) continue;
      std::sort(times[r].begin(), times[r].end());
      const float median = times[r][times[r].size() / 2];
      std::printf(" | %s %.1fus %.0f%%", rows[r].name, median, bytes / (median * 1e-6) / 1e9 / peak_gbps * 100);
    }
    std::printf("\n");
  }
  return 0;
}
