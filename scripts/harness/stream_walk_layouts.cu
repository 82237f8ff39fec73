// Where reducelab::segmented_reduce loses to cub::DeviceSegmentedReduce on long uniform segments (4096, 2^16): the
// library's one-launch schedule against plain int32 sums of the same bytes in the orders it could read them.
//
//   seglibL / cubsegL  reducelab::segmented_reduce / cub::DeviceSegmentedReduce::Sum over uniform segments of L
//   contig      one wave of G blocks (the library's grid: 4 x 256 threads per SM), each block sweeps its own
//               contiguous share, 16 KiB per step (thread t reads vectors t, t + 256, ... of the step)
//   wshare      the same shares, each warp of the block its own contiguous eighth of it, 2 KiB per step (the order of
//               agent/stream_pieces.cuh's stream walk)
//   wshareK     wshare with K loads in flight per lane (2 KiB x K / 4 per step)
//   rot         contig with block b starting its sweep (b x 3) mod steps steps into its share and wrapping round
//   stripedC    one wave, chunks of C KiB dealt round robin (chunk c to block c mod G)
//   timedL      the library's merge-path pass copied with %globaltimer stamps per block (seglibL's work, as at
//               a758067; printed after the rows)
//
// Build here (no project build needed):
//   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include -I src -I . -o stream_walk_layouts \
//        scripts/harness/stream_walk_layouts.cu comparisons/timing/stream_hold.cu
// Run: ./stream_walk_layouts [samples=9] [log2 sizes=24,26] [rows, comma separated substrings; default all]
// Cold: a memset of 256 MiB then a read of it before each sample; the rows' order changes every round. Every row's
// result is checked against the host once per size (the sums from the blocks' partials; the segmented rows in full).
#include "functors/plus.cuh"
#include "reducelab/segmented_reduce.cuh"
#include "scripts/harness/harness_common.cuh"

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr int threads = 256;
constexpr int warps = threads / 32;

__device__ __forceinline__ int fold4(int4 v) { return v.x + v.y + v.z + v.w; }

__device__ __forceinline__ void block_store(int acc, long long* partials) {
  __shared__ int warp_sums[warps];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int w = 0; w < warps; ++w) s += warp_sums[w];
    partials[blockIdx.x] = s;
  }
}

/// The block's share of `nvec` vectors in whole steps of `step` vectors (the sizes here are multiples).
struct share {
  std::size_t first, last;
};
__device__ __forceinline__ share block_share(std::size_t nvec, std::size_t step) {
  const std::size_t steps = nvec / step;
  const std::size_t per = (steps + gridDim.x - 1) / gridDim.x;
  const std::size_t s0 = blockIdx.x * per < steps ? blockIdx.x * per : steps;
  const std::size_t s1 = s0 + per < steps ? s0 + per : steps;
  return {s0 * step, s1 * step};
}

template <int V>
__device__ __forceinline__ int step_sum(const int4* __restrict__ in, std::size_t first) {
  int4 v[V];
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = __ldg(in + first + j * threads + threadIdx.x);
  int s = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) s += fold4(v[j]);
  return s;
}

__global__ void __launch_bounds__(threads, 4) contig(const int4* __restrict__ in, std::size_t nvec, long long* p) {
  constexpr std::size_t step = threads * 4;
  const share s = block_share(nvec, step);
  int acc = 0;
  for (std::size_t i = s.first; i < s.last; i += step) acc += step_sum<4>(in, i);
  block_store(acc, p);
}

__global__ void __launch_bounds__(threads, 4) rot(const int4* __restrict__ in, std::size_t nvec, long long* p) {
  constexpr std::size_t step = threads * 4;
  const share s = block_share(nvec, step);
  const std::size_t steps = (s.last - s.first) / step;
  int acc = 0;
  if (steps > 0) {
    const std::size_t start = (static_cast<std::size_t>(blockIdx.x) * 3) % steps;
    for (std::size_t k = 0; k < steps; ++k) {
      const std::size_t at = start + k < steps ? start + k : start + k - steps;
      acc += step_sum<4>(in, s.first + at * step);
    }
  }
  block_store(acc, p);
}

/// Each warp its own contiguous part of the block's share, K loads of 32 consecutive vectors per step.
template <int K>
__global__ void __launch_bounds__(threads, 4) wshare(const int4* __restrict__ in, std::size_t nvec, long long* p) {
  const share s = block_share(nvec, threads * 4);
  const std::size_t n = s.last - s.first;
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::size_t vb = s.first + n * w / warps, ve = s.first + n * (w + 1) / warps;
  int acc = 0;
  std::size_t i = vb;
  for (; i + 32 * K <= ve; i += 32 * K) {
    int4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = __ldg(in + i + j * 32 + lane);
#pragma unroll
    for (int j = 0; j < K; ++j) acc += fold4(v[j]);
  }
  for (std::size_t k = i + lane; k < ve; k += 32) acc += fold4(__ldg(in + k));
  block_store(acc, p);
}

template <int ChunkKiB>
__global__ void __launch_bounds__(threads, 4) striped(const int4* __restrict__ in, std::size_t nvec, long long* p) {
  constexpr std::size_t step = threads * 4, chunk = ChunkKiB * 1024 / 16;
  static_assert(chunk % step == 0, "whole steps per chunk");
  int acc = 0;
  for (std::size_t c = blockIdx.x; c * chunk < nvec; c += gridDim.x)
    for (std::size_t i = c * chunk; i < (c + 1) * chunk && i < nvec; i += step) acc += step_sum<4>(in, i);
  block_store(acc, p);
}


// --- where seglib's time goes: the library's merge-path pass (kernels/merge_path_segments.cuh as at a758067, stop 50:
// early candidates, weighted ends, the first segment's start read after the search; plus over int32, one offsets
// array, without the short-segment pass, which at these lengths only decides and leaves) with %globaltimer stamps per
// block ------------------------------------------------------------------------------------------------------------

namespace seg = reducelab::segmented;
using seg_policy = seg::tuning::default_policy<4>;
using plus_op = reducelab::functors::plus;
constexpr int stamps_per_block = 5;  // entry, bounds read, stretch found, walk done, done

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void __launch_bounds__(seg_policy::block_threads, seg_policy::min_blocks_per_sm)
    timed_segments(const int* __restrict__ in, const long long* offsets, long long S, double per_block, int* out,
                   seg::grid::carry_slots<int> carries, unsigned long long* stamps) {
  using namespace reducelab::segmented;
  constexpr auto Map = agent::element_map::contiguous;
  using PolicyT = seg_policy;
  __shared__ agent::block_storage<PolicyT, int, plus_op, Map> storage;
  __shared__ path_coord stretch[2];
  __shared__ long long stretch_first_start;
  unsigned long long* mine = stamps + stamps_per_block * blockIdx.x;
  if (threadIdx.x == 0) mine[0] = now_ns();
  agent::segment_source<long long, long long> src;
  src.offsets = offsets;
  src.begins = nullptr;
  src.num_segments = S;
  long long early_from = -1, early_raw = 0;
  if (threadIdx.x < 64 && S > 0) {
    const long long x0 = static_cast<long long>(static_cast<double>(blockIdx.x + threadIdx.x / 32) * per_block);
    early_from = early_first(x0, S);
    const long long x = early_from + threadIdx.x % 32;
    if (x < S) early_raw = offsets[x + 1];
  }
  src.origin = offsets[0];
  const long long last = offsets[S];
  src.num_elements = last > src.origin ? last - src.origin : 0;
  if (threadIdx.x == 0) mine[1] = now_ns() + (src.num_elements == 0 ? 1 : 0);  // after the bounds arrive
  constexpr long long end_weight = PolicyT::end_step_weight;  // plus over int32 streams: its ends are weighted
  const long long total = path_cost(src.num_segments, src.num_elements, end_weight);
  const diagonal_range range = block_diagonals(blockIdx.x, gridDim.x, total, PolicyT::tile_steps);
  const int warp_id = threadIdx.x / 32;
  if (warp_id < 2) {
    const path_coord c = warp::merge_path_search(
        warp_id == 0 ? range.first : range.last, [src](long long x) { return src.end(x); }, src.num_segments,
        src.num_elements, end_weight, early_from, early_raw - src.origin);
    if (threadIdx.x % 32 == 0) {
      stretch[warp_id] = c;
      if (warp_id == 0)
        stretch_first_start = c.segment < S ? offsets[c.segment] - src.origin : src.num_elements;
    }
  }
  __syncthreads();
  const path_coord from = stretch[0], to = stretch[1];
  if (threadIdx.x == 0) mine[2] = now_ns();
  const long long average = (to.element - from.element) / (to.segment - from.segment + 1);
  plus_op op;
  int carry = average >= PolicyT::stream_min_average && to.segment - from.segment < agent::max_stream_pieces
                  ? agent::stream_pieces<PolicyT, Map>(in, src, from, to, out, op, storage)
                  : agent::reduce_pieces_by_average<PolicyT, Map>(in, src, from, to, out, op, average, storage);
  __syncthreads();
  if (threadIdx.x == 0) mine[3] = now_ns();
  const long long first_start = stretch_first_start;
  const long long block = blockIdx.x;
  if (threadIdx.x == 0) grid::publish_carry(carries, block, carry, !passes_through(from, to, first_start));
  if (finishes_earlier_segment(from, to, first_start)) {
    const int own = threadIdx.x == 0 ? out[from.segment] : carry;
    const int before = grid::look_back<PolicyT::block_threads>(carries, block, op, storage.range().reduce);
    if (threadIdx.x == 0) out[from.segment] = op(before, own);
  }
  if (threadIdx.x == 0) mine[4] = now_ns();
}

void print_stamps(const unsigned long long* device_stamps, int grid) {
  std::vector<unsigned long long> h(stamps_per_block * grid);
  CHECK_CUDA(cudaMemcpy(h.data(), device_stamps, h.size() * 8, cudaMemcpyDeviceToHost));
  unsigned long long t0 = ~0ULL;
  for (int b = 0; b < grid; ++b) t0 = std::min(t0, h[stamps_per_block * b]);
  const char* names[stamps_per_block] = {"entry", "bounds", "found", "walked", "done"};
  std::printf("    stamps of the last sample (us after the first entry: min / p10 / median / p90 / max over %d "
              "blocks)\n",
              grid);
  for (int k = 0; k < stamps_per_block; ++k) {
    std::vector<double> v;
    for (int b = 0; b < grid; ++b) v.push_back((h[stamps_per_block * b + k] - t0) * 1e-3);
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) { return v[static_cast<std::size_t>(q * (v.size() - 1))]; };
    std::printf("      %-7s %6.2f %6.2f %6.2f %6.2f %6.2f\n", names[k], at(0), at(0.1), at(0.5), at(0.9), at(1));
  }
}

using sum_kernel = void (*)(const int4*, std::size_t, long long*);

struct row {
  std::string name;
  sum_kernel kernel;  // nullptr: a segmented row
  int length;         // a segmented row's segment length
  bool cub;
  bool timed = false;
};

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 9;
  std::vector<int> log_sizes = {24, 26};
  if (argc > 2) log_sizes = harness_common::parse_int_list(argv[2]);
  const std::string only = argc > 3 ? argv[3] : "";
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double peak = harness_common::peak_gb_per_s();
  std::printf("device %s peak %.0f GB/s, %d SMs\n", prop.name, peak, prop.multiProcessorCount);

  std::vector<row> all = {{"seglib4096", nullptr, 4096, false}, {"cubseg4096", nullptr, 4096, true},
                          {"seglib65536", nullptr, 65536, false}, {"cubseg65536", nullptr, 65536, true},
                          {"contig", contig, 0, false},          {"rot", rot, 0, false},
                          {"wshare4", wshare<4>, 0, false},      {"wshare8", wshare<8>, 0, false},
                          {"striped16", striped<16>, 0, false},  {"striped64", striped<64>, 0, false},
                          {"striped256", striped<256>, 0, false},
                          {"timed4096", nullptr, 4096, false, true}, {"timed65536", nullptr, 65536, false, true}};
  std::vector<row> rows;
  for (const row& r : all) {
    bool take = only.empty();
    for (std::size_t at = 0; !take && at < only.size();) {
      const std::size_t comma = only.find(',', at);
      const std::string want = only.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      take = r.name.find(want) != std::string::npos;  // a substring, as the header says
      at = comma == std::string::npos ? only.size() : comma + 1;
    }
    if (take) rows.push_back(r);
  }
  int per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, contig, threads, 0));
  const int grid = std::min(per_sm, 4) * prop.multiProcessorCount;
  int timed_per_sm = 0;
  CHECK_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&timed_per_sm, timed_segments, seg_policy::block_threads, 0));
  std::printf("one-wave grid %d blocks (the timed kernel fits %d per SM)\n", grid, timed_per_sm);

  const std::size_t max_n = std::size_t{1} << *std::max_element(log_sizes.begin(), log_sizes.end());
  std::vector<int> h(max_n);
  unsigned x = 12345;
  for (auto& v : h) v = static_cast<int>((x = x * 1664525u + 1013904223u) >> 8) % 1000 - 500;
  int *in, *seg_out;
  long long *partials, *offsets;
  CHECK_CUDA(cudaMalloc(&in, max_n * 4));
  CHECK_CUDA(cudaMalloc(&partials, grid * 8));
  CHECK_CUDA(cudaMalloc(&offsets, (max_n / 4096 + 1) * 8));
  CHECK_CUDA(cudaMalloc(&seg_out, (max_n / 4096) * 4));
  CHECK_CUDA(cudaMemcpy(in, h.data(), max_n * 4, cudaMemcpyHostToDevice));
  unsigned long long* stamps;
  void* carry_bytes;
  CHECK_CUDA(cudaMalloc(&stamps, 8 * stamps_per_block * grid));
  CHECK_CUDA(cudaMalloc(&carry_bytes, seg::grid::carry_slots<int>::bytes_for(grid)));
  CHECK_CUDA(cudaMemset(carry_bytes, 0, seg::grid::carry_slots<int>::bytes_for(grid)));
  unsigned long long epoch = 1;
  void* cub_temp = nullptr;
  std::size_t cub_temp_bytes = 0;
  harness_common::cold_timer timer;
  const cudaStream_t stream = timer.stream();

  for (int lg : log_sizes) {
    const std::size_t n = std::size_t{1} << lg, nvec = n / 4;
    long long want = 0;
    for (std::size_t i = 0; i < n; ++i) want += h[i];
    std::vector<std::vector<float>> times(rows.size());
    std::vector<int> order(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) order[r] = static_cast<int>(r);
    for (int k = 0; k <= samples; ++k) {
      std::rotate(order.begin(), order.begin() + 1, order.end());
      if (k % 2) std::reverse(order.begin(), order.end());
      for (int r : order) {
        const row& rw = rows[r];
        long long segments = 0;
        if (!rw.kernel) {  // this row's offsets, before the flush (not timed)
          segments = static_cast<long long>(n / rw.length);
          std::vector<long long> o(segments + 1);
          for (long long s = 0; s <= segments; ++s) o[s] = s * rw.length;
          CHECK_CUDA(cudaMemcpyAsync(offsets, o.data(), o.size() * 8, cudaMemcpyHostToDevice, stream));
          if (rw.cub) {
            std::size_t bytes = 0;
            CHECK_CUDA(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, in, seg_out, segments, offsets, offsets + 1,
                                                       stream));
            if (bytes > cub_temp_bytes) {
              CHECK_CUDA(cudaStreamSynchronize(stream));
              CHECK_CUDA(cudaFree(cub_temp));
              CHECK_CUDA(cudaMalloc(&cub_temp, bytes));
              cub_temp_bytes = bytes;
            }
          }
          CHECK_CUDA(cudaMemsetAsync(seg_out, 0x55, segments * 4, stream));
          CHECK_CUDA(cudaStreamSynchronize(stream));
        }
        const float us = timer.time_us(k, [&](cudaStream_t stream) {
          if (rw.kernel) {
            rw.kernel<<<grid, threads, 0, stream>>>(reinterpret_cast<const int4*>(in), nvec, partials);
          } else if (rw.timed) {
            timed_segments<<<grid, seg_policy::block_threads, 0, stream>>>(
                in, offsets, segments, static_cast<double>(segments) / grid, seg_out,
                seg::grid::carry_slots<int>::carve(carry_bytes, grid, ++epoch), stamps);
          } else if (rw.cub) {
            CHECK_CUDA(cub::DeviceSegmentedReduce::Sum(cub_temp, cub_temp_bytes, in, seg_out, segments, offsets,
                                                       offsets + 1, stream));
          } else {
            reducelab::segmented_reduce(in, offsets, offsets + 1, static_cast<std::size_t>(segments), seg_out,
                                        reducelab::functors::plus{}, stream);
          }
        });
        if (k > 0) times[r].push_back(us);
        if (k == 0) {  // check once per size
          bool ok = true;
          if (rw.kernel) {
            std::vector<long long> got(grid);
            CHECK_CUDA(cudaMemcpy(got.data(), partials, grid * 8, cudaMemcpyDeviceToHost));
            long long sum = 0;
            for (long long v : got) sum += v;
            ok = static_cast<int>(sum) == static_cast<int>(want);
          } else {
            std::vector<int> got(segments);
            CHECK_CUDA(cudaMemcpy(got.data(), seg_out, segments * 4, cudaMemcpyDeviceToHost));
            for (long long s = 0; s < segments && ok; ++s) {
              int e = 0;
              for (long long i = s * rw.length; i < (s + 1) * rw.length; ++i) e += h[i];
              ok = got[s] == e;
            }
          }
          if (!ok) std::printf("%s 2^%d WRONG\n", rw.name.c_str(), lg);
        }
      }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::sort(times[r].begin(), times[r].end());
      const float med = times[r][times[r].size() / 2];
      const double bytes = n * 4.0 + (rows[r].kernel ? 0.0 : (n / rows[r].length) * 12.0 + 8.0);
      std::printf("n=2^%d %-12s %8.2f us  p10 %8.2f p90 %8.2f  %5.1f %% peak\n", lg, rows[r].name.c_str(), med,
                  times[r][times[r].size() / 10], times[r][times[r].size() * 9 / 10],
                  bytes / (med * 1e-6) / 1e9 / peak * 100);
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r].timed) continue;
      std::printf("n=2^%d %s: ", lg, rows[r].name.c_str());
      // one more sample of this row alone, cold, for its stamps
      long long segments = static_cast<long long>(n / rows[r].length);
      std::vector<long long> o(segments + 1);
      for (long long s = 0; s <= segments; ++s) o[s] = s * rows[r].length;
      CHECK_CUDA(cudaMemcpy(offsets, o.data(), o.size() * 8, cudaMemcpyHostToDevice));
      timer.flush(7);
      timed_segments<<<grid, seg_policy::block_threads, 0, stream>>>(
          in, offsets, segments, static_cast<double>(segments) / grid, seg_out,
          seg::grid::carry_slots<int>::carve(carry_bytes, grid, ++epoch), stamps);
      CHECK_CUDA(cudaStreamSynchronize(stream));
      print_stamps(stamps, grid);
    }
  }
  return 0;
}
