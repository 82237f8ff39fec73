// Same-run harness for how reducelab::segmented_reduce joins segments that cross blocks: the library (one launch, the
// look-back of segmented/grid/segment_carries.cuh) beside the same main-pass walk followed by the second kernel the
// look-back replaced (the fix-up, one block folding every block's carry in order, as it was at a6ab44e), and beside
// the walk alone (no join at all: wrong wherever a segment crosses blocks, a floor for the cost of joining), with
// cub::DeviceSegmentedReduce::Sum for scale, and the library's kernel under the previous 4-byte policy (5 resident
// blocks instead of 4). Not part of the build or of the tests; results/<device>-segmented/lookback-vs-fixup.txt holds
// what it printed.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include \
//                     scripts/harness/segmented_carries.cu -o segmented_carries
//   run:            ./segmented_carries [LENGTHS|all] [SAMPLES] [VARIANTS]
//                   e.g. ./segmented_carries all 7 library,cub_sum,fixup,walk_only,library_5_blocks
//
// 2^24 int32 values, 64-bit offsets, plus. LENGTHS: uniform segment lengths, or -1 (one segment of 2^23 values, then
// segments of 8) and -2 (mixed lengths 0..3000). Cold: a 256 MiB memset and read between samples; CUDA events around
// each call; the median of SAMPLES after one unrecorded call, whose output is checked against the host.
#include "reducelab/segmented/block/block_segmented_scan.cuh"
#include "reducelab/segmented_reduce.cuh"

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                                \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace harness {

namespace seg = reducelab::segmented;

struct plus_int {
  static constexpr bool commutative = true;  // as functors/plus.cuh declares: the pieces walk reads it in 16-byte vectors
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(0);
  }
  __host__ __device__ int operator()(int a, int b) const { return a + b; }
};

using policy = seg::tuning::default_policy<sizeof(int)>;

// --- the join as it was before the look-back: carries (segment, value) per block, then one fix-up block -----------

__host__ __device__ inline bool opens_run(const long long* carry_segment, long long c) {
  return c == 0 || carry_segment[c] != carry_segment[c - 1];
}
__host__ __device__ inline bool needs_prefix(const long long* carry_segment, long long c, long long count) {
  return c + 1 < count && carry_segment[c] < carry_segment[c + 1];
}

template <int Threads>
__global__ void __launch_bounds__(Threads)
    fix_up(const long long* carry_segment, const int* carry_value, long long count, int* out, plus_int op) {
  using storage_t = seg::block::scan_storage<int, Threads>;
  __shared__ alignas(16) unsigned char raw[sizeof(storage_t)];
  storage_t& storage = *reinterpret_cast<storage_t*>(raw);
  const long long per_thread = (count + Threads - 1) / Threads;
  const long long first = threadIdx.x * per_thread < count ? threadIdx.x * per_thread : count;
  const long long last = count - first > per_thread ? first + per_thread : count;
  seg::flagged<int> mine{0, false};
  for (long long c = first; c < last; ++c)
    mine = seg::then(mine, seg::flagged<int>{carry_value[c], opens_run(carry_segment, c)}, op);
  seg::flagged<int> before, total;
  seg::block::exclusive_scan<Threads>(mine, 0, op, storage, before, total);
  int running = before.value;
  for (long long c = first; c < last; ++c) {
    running = opens_run(carry_segment, c) ? carry_value[c] : op(running, carry_value[c]);
    if (needs_prefix(carry_segment, c, count)) out[carry_segment[c]] = op(running, out[carry_segment[c]]);
  }
}

/// The library's main pass up to its walk (the same search, the same pieces walk), storing the carry per block.
__global__ void __launch_bounds__(policy::block_threads, policy::min_blocks_per_sm)
    walk_and_store_carries(const int* __restrict__ in, const long long* offsets, long long S, int* out,
                           long long* carry_segment, int* carry_value) {
  __shared__ seg::agent::block_storage<policy, int, plus_int, seg::agent::element_map::contiguous> storage;
  __shared__ seg::path_coord stretch[2];
  seg::agent::segment_source<long long, long long> src;
  src.offsets = offsets;
  src.begins = nullptr;
  src.num_segments = S;
  src.origin = offsets[0];
  src.num_elements = offsets[S] - src.origin;
  const long long total = S + src.num_elements;
  const seg::diagonal_range range = seg::block_diagonals(blockIdx.x, gridDim.x, total, policy::tile_steps);
  if (range.first == range.last) {
    if (threadIdx.x == 0) {
      carry_segment[blockIdx.x] = S;
      carry_value[blockIdx.x] = 0;
    }
    return;
  }
  const int warp_id = threadIdx.x / 32;
  if (warp_id < 2) {
    const seg::path_coord c = seg::warp::merge_path_search(
        warp_id == 0 ? range.first : range.last, [src](long long x) { return src.end(x); }, S, src.num_elements);
    if (threadIdx.x % 32 == 0) stretch[warp_id] = c;
  }
  __syncthreads();
  const seg::path_coord from = stretch[0], to = stretch[1];
  const long long average = (to.element - from.element) / (to.segment - from.segment + 1);
  const int carry = seg::agent::reduce_pieces_by_average<policy, seg::agent::element_map::contiguous>(
      in, src, from, to, out, plus_int{}, average, storage);
  if (threadIdx.x == 0) {
    carry_segment[blockIdx.x] = to.segment;
    carry_value[blockIdx.x] = carry;
  }
}

// --- the rows ---------------------------------------------------------------------------------------------------

using row_fn = void (*)(const int*, const long long*, long long, int*, void*, cudaStream_t);

void library(const int* in, const long long* offsets, long long S, int* out, void*, cudaStream_t stream) {
  reducelab::segmented_reduce(in, offsets, offsets + 1, static_cast<std::size_t>(S), out, plus_int{}, stream);
}

template <bool FixUp>
void old_join(const int* in, const long long* offsets, long long S, int* out, void* workspace, cudaStream_t stream) {
  static int per_sm = 0, sms = 0;
  if (per_sm == 0) {
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk_and_store_carries, policy::block_threads, 0));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  }
  const long long grid = static_cast<long long>(per_sm) * sms;  // as the library sizes it
  auto* carry_segment = static_cast<long long*>(workspace);
  auto* carry_value = reinterpret_cast<int*>(static_cast<char*>(workspace) + 8 * grid + 256);
  walk_and_store_carries<<<static_cast<unsigned>(grid), policy::block_threads, 0, stream>>>(in, offsets, S, out,
                                                                                            carry_segment, carry_value);
  if (FixUp) fix_up<256><<<1, 256, 0, stream>>>(carry_segment, carry_value, grid, out, plus_int{});
}

/// The library's kernel under the 4-byte policy it had before ea1b91b (5 resident blocks, so 48 registers), launched as
/// detail/dispatch.cuh launches it: the same-run A/B of that change.
struct five_blocks_policy : seg::tuning::policy<256, 8, 2048, 5, 0> {};
void library_five_blocks(const int* in, const long long* offsets, long long S, int* out, void* workspace,
                         cudaStream_t stream) {
  constexpr auto kernel = &seg::kernels::merge_path_segments<five_blocks_policy, seg::agent::element_map::contiguous,
                                                             plus_int, int, long long, long long>;
  static int per_sm = 0, sms = 0;
  if (per_sm == 0) {
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, five_blocks_policy::block_threads, 0));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  }
  const long long grid = static_cast<long long>(per_sm) * sms;
  seg::kernels::segment_count count;
  count.host = S;
  kernel<<<static_cast<unsigned>(grid), five_blocks_policy::block_threads, 0, stream>>>(
      in, offsets, static_cast<const long long*>(nullptr), count, out,
      seg::grid::carry_slots<int>::carve(workspace, grid, reducelab::detail::next_epoch()), plus_int{});
}

void* cub_temp = nullptr;
std::size_t cub_temp_bytes = 0;
void cub_sum(const int* in, const long long* offsets, long long S, int* out, void*, cudaStream_t stream) {
  std::size_t bytes = 0;
  CHECK_CUDA(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, in, out, S, offsets, offsets + 1, stream));
  if (bytes > cub_temp_bytes) {
    CHECK_CUDA(cudaFree(cub_temp));
    CHECK_CUDA(cudaMalloc(&cub_temp, bytes));
    cub_temp_bytes = bytes;
  }
  CHECK_CUDA(cub::DeviceSegmentedReduce::Sum(cub_temp, bytes, in, out, S, offsets, offsets + 1, stream));
}

__global__ void touch(const int4* p, std::size_t n, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    acc ^= p[i].x;
  if (acc == 0x7fffffff) *sink = acc;
}

std::vector<long long> offsets_for(long long length, long long n) {
  std::vector<long long> o{0};
  if (length > 0) {
    for (long long at = 0; at < n;) o.push_back(at = std::min(at + length, n));
  } else if (length == -1) {  // one segment of n / 2, then segments of 8
    o.push_back(n / 2);
    for (long long at = n / 2; at < n;) o.push_back(at = std::min(at + 8, n));
  } else {  // mixed: 2 % of 3000, 13 % of 200, 10 % empty, the rest 0..8
    unsigned r = 7;
    for (long long at = 0; at < n;) {
      r = r * 1103515245u + 12345u;
      const unsigned q = (r >> 16) % 100;
      const long long len = q < 2 ? 3000 : q < 15 ? 200 : q < 25 ? 0 : (q % 9);
      o.push_back(at = std::min(at + len, n));
    }
  }
  return o;
}

}  // namespace harness

int main(int argc, char** argv) {
  using namespace harness;
  const long long n = 1LL << 24;
  const int samples = argc > 2 ? std::atoi(argv[2]) : 7;
  std::vector<long long> lengths = {1, 8, 32, 256, 1000, 4096, 65536, 1 << 20, -1, -2};
  if (argc > 1 && std::strcmp(argv[1], "all") != 0) {
    lengths.clear();
    for (char* t = std::strtok(argv[1], ","); t != nullptr; t = std::strtok(nullptr, ",")) lengths.push_back(std::atoll(t));
  }
  const std::string only = argc > 3 ? argv[3] : "";
  struct row {
    const char* name;
    row_fn fn;
    bool joins;  // walk_only leaves segments that cross blocks unjoined: not checked
  };
  const std::vector<row> rows = {{"library", library, true},
                                 {"cub_sum", cub_sum, true},
                                 {"fixup", old_join<true>, true},
                                 {"walk_only", old_join<false>, false},
                                 {"library_5_blocks", library_five_blocks, true}};
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int memory_khz = 0, bus_bits = 0;  // the report's peak: 2 x memory clock x bus width
  CHECK_CUDA(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  const double peak_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;
  std::printf("device %s peak %.0f GB/s\n", prop.name, peak_gbps);

  std::vector<int> h(n);
  unsigned x = 12345;
  for (auto& v : h) v = static_cast<int>((x = x * 1664525u + 1013904223u) >> 8) % 1000 - 500;
  int *in, *out, *sink;
  long long* offsets;
  void* workspace;
  int4* flush;
  const std::size_t flush_n = (std::size_t{256} << 20) / 16;
  CHECK_CUDA(cudaMalloc(&in, n * 4));
  CHECK_CUDA(cudaMalloc(&out, n * 4 + 64));
  CHECK_CUDA(cudaMalloc(&offsets, (n + 1) * 8));
  CHECK_CUDA(cudaMalloc(&workspace, 8 << 20));
  CHECK_CUDA(cudaMalloc(&flush, flush_n * 16));
  CHECK_CUDA(cudaMalloc(&sink, 4));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (long long length : lengths) {
    const std::vector<long long> o = offsets_for(length, n);
    const long long S = static_cast<long long>(o.size()) - 1;
    CHECK_CUDA(cudaMemcpy(offsets, o.data(), (S + 1) * 8, cudaMemcpyHostToDevice));
    std::vector<int> want(S);
    for (long long s = 0; s < S; ++s) {
      unsigned sum = 0;
      for (long long i = o[s]; i < o[s + 1]; ++i) sum += static_cast<unsigned>(h[i]);
      want[s] = static_cast<int>(sum);
    }
    const double bytes = n * 4.0 + (S + 1) * 8.0 + S * 4.0;
    std::vector<int> got(S);
    std::vector<std::vector<float>> times(rows.size());
    for (int k = 0; k <= samples; ++k) {
      for (std::size_t r = 0; r < rows.size(); ++r) {
        if (!only.empty() && only.find(rows[r].name) == std::string::npos) continue;
        CHECK_CUDA(cudaMemsetAsync(flush, k, flush_n * 16, stream));
        touch<<<528, 512, 0, stream>>>(flush, flush_n, sink);
        CHECK_CUDA(cudaMemsetAsync(out, 0x55, S * 4, stream));
        CHECK_CUDA(cudaEventRecord(start, stream));
        rows[r].fn(in, offsets, S, out, workspace, stream);
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaGetLastError());
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (k > 0) times[r].push_back(ms * 1000);
        if (k == 0 && rows[r].joins) {
          CHECK_CUDA(cudaMemcpy(got.data(), out, S * 4, cudaMemcpyDeviceToHost));
          long long bad = 0, first = -1;
          for (long long s = 0; s < S; ++s)
            if (got[s] != want[s] && bad++ == 0) first = s;
          if (bad > 0)
            std::printf("  %s L=%lld WRONG: %lld segments, first %lld got %d want %d\n", rows[r].name, length, bad, first,
                        got[first], want[first]);
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
