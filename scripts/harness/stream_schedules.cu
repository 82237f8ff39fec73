// How the order in which blocks read a large input changes what a streaming reduction gets from HBM: the same int32
// sum (16-byte loads, V loads in flight per thread, 256 threads, one partial per block) under four schedules.
//
//   contig   one wave of G blocks, each reads its own contiguous stretch (the segmented pieces walk's order)
//   striped  one wave, tile k (256 x V vectors) read by block k mod G (reducelab::reduce's commutative deal)
//   waves    a block per tile of R rounds of 256 x V vectors, many waves, scheduled by the hardware
//            (cub::DeviceSegmentedReduce's shape at long uniform segments)
//   queue    one wave, tiles of R rounds taken from an atomic counter in address order (the next ticket is taken
//            while this tile's loads are in flight)
//
// Build here (no project build needed):
//   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include -I src -I . -o stream_schedules \
//        scripts/harness/stream_schedules.cu
// Run: ./stream_schedules [samples=9] [log2 sizes, comma separated: 24,26,28]
// Cold like the other harnesses: a memset of 256 MiB then a read of it before each sample; rows interleaved per round.
#include "functors/plus.cuh"
#include "reducelab/reduce.cuh"
#include "scripts/harness/harness_common.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using harness_common::touch;

namespace {

constexpr int threads = 256;

__device__ __forceinline__ int fold4(int4 v) { return v.x + v.y + v.z + v.w; }

template <int BT = threads>
__device__ __forceinline__ void block_store(int acc, long long* partials, unsigned slot) {
  __shared__ int warp_sums[BT / 32];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int w = 0; w < BT / 32; ++w) s += warp_sums[w];
    partials[slot] = s;  // every block has a slot of its own
  }
}

/// V vectors of one tile (256 x V vectors starting at `first`), all loads issued before any is added.
template <int V>
__device__ __forceinline__ int tile_sum(const int4* __restrict__ in, std::size_t first, std::size_t nvec) {
  int4 v[V];
  if (first + std::size_t{threads} * V <= nvec) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = __ldg(in + first + j * threads + threadIdx.x);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::size_t i = first + j * threads + threadIdx.x;
      v[j] = i < nvec ? __ldg(in + i) : make_int4(0, 0, 0, 0);
    }
  }
  int s = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) s += fold4(v[j]);
  return s;
}

template <int V>
__global__ void __launch_bounds__(threads) contig(const int4* __restrict__ in, std::size_t nvec, long long* partials) {
  const std::size_t tile = std::size_t{threads} * V;
  const std::size_t tiles = (nvec + tile - 1) / tile;
  const std::size_t per = (tiles + gridDim.x - 1) / gridDim.x;
  const std::size_t t0 = blockIdx.x * per, t1 = t0 + per < tiles ? t0 + per : tiles;
  int acc = 0;
  for (std::size_t t = t0; t < t1; ++t) acc += tile_sum<V>(in, t * tile, nvec);
  block_store(acc, partials, blockIdx.x);
}

template <int V>
__global__ void __launch_bounds__(threads) striped(const int4* __restrict__ in, std::size_t nvec, long long* partials) {
  const std::size_t tile = std::size_t{threads} * V;
  const std::size_t tiles = (nvec + tile - 1) / tile;
  int acc = 0;
  for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) acc += tile_sum<V>(in, t * tile, nvec);
  block_store(acc, partials, blockIdx.x);
}

/// striped with a block of BT threads (the library's 4-byte policy is 512 x 4)
template <int BT, int V>
__global__ void __launch_bounds__(BT) striped_bt(const int4* __restrict__ in, std::size_t nvec, long long* partials) {
  const std::size_t tile = std::size_t{BT} * V;
  const std::size_t tiles = nvec / tile;  // whole tiles only: the sizes here are multiples
  int acc = 0;
  for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    int4 v[V];
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = __ldg(in + t * tile + j * BT + threadIdx.x);
#pragma unroll
    for (int j = 0; j < V; ++j) acc += fold4(v[j]);
  }
  block_store<BT>(acc, partials, blockIdx.x);
}

/// striped_bt with the next pass's loads issued before this pass is folded (two passes of registers)
template <int BT, int V>
__global__ void __launch_bounds__(BT) striped_pipe(const int4* __restrict__ in, std::size_t nvec, long long* partials) {
  const std::size_t tile = std::size_t{BT} * V;
  const std::size_t tiles = nvec / tile;
  int acc = 0;
  std::size_t t = blockIdx.x;
  int4 a[V], b[V];
  if (t < tiles) {
#pragma unroll
    for (int j = 0; j < V; ++j) a[j] = __ldg(in + t * tile + j * BT + threadIdx.x);
  }
  while (t < tiles) {
    const std::size_t u = t + gridDim.x;
    if (u < tiles) {
#pragma unroll
      for (int j = 0; j < V; ++j) b[j] = __ldg(in + u * tile + j * BT + threadIdx.x);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) acc += fold4(a[j]);
#pragma unroll
    for (int j = 0; j < V; ++j) a[j] = b[j];
    t = u;
  }
  block_store<BT>(acc, partials, blockIdx.x);
}

/// waves with CUB's blocked arrangement: thread t reads V consecutive vectors of the tile
template <int V>
__global__ void __launch_bounds__(threads) waves_blocked(const int4* __restrict__ in, std::size_t nvec,
                                                         long long* partials) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * threads * V + threadIdx.x * V;
  int4 v[V];
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = __ldg(in + first + j);
  int acc = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) acc += fold4(v[j]);
  block_store(acc, partials, blockIdx.x);
}

template <int V, int R>
__global__ void __launch_bounds__(threads) waves(const int4* __restrict__ in, std::size_t nvec, long long* partials) {
  const std::size_t tile = std::size_t{threads} * V;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * R * tile;
  int acc = 0;
#pragma unroll 1
  for (int r = 0; r < R; ++r) acc += tile_sum<V>(in, first + r * tile, nvec);
  block_store(acc, partials, blockIdx.x);
}

template <int V, int R>
__global__ void __launch_bounds__(threads) queue(const int4* __restrict__ in, std::size_t nvec, long long* partials,
                                                 unsigned long long* counter) {
  __shared__ unsigned long long next[2];
  const std::size_t tile = std::size_t{threads} * V;
  const std::size_t chunks = (nvec + tile * R - 1) / (tile * R);
  int acc = 0;
  // The first chunk is the block's own (no counter round trip before the first loads); the counter hands out the
  // rest in address order, the next ticket taken while this chunk's loads are in flight.
  unsigned long long c = blockIdx.x;
  int parity = 0;
  while (c < chunks) {
    if (threadIdx.x == 0) next[parity] = gridDim.x + atomicAdd(counter, 1ull);
#pragma unroll 1
    for (int r = 0; r < R; ++r) acc += tile_sum<V>(in, (c * R + r) * tile, nvec);
    __syncthreads();
    c = next[parity];
    parity ^= 1;
  }
  block_store(acc, partials, blockIdx.x);
}

struct row {
  std::string name;
  void (*launch)(const int4*, std::size_t, long long*, unsigned long long*, int grid_one_wave, cudaStream_t);
  bool one_wave;
};

template <int V>
void run_contig(const int4* in, std::size_t nvec, long long* p, unsigned long long*, int g, cudaStream_t s) {
  contig<V><<<g, threads, 0, s>>>(in, nvec, p);
}
template <int V>
void run_striped(const int4* in, std::size_t nvec, long long* p, unsigned long long*, int g, cudaStream_t s) {
  striped<V><<<g, threads, 0, s>>>(in, nvec, p);
}
template <int V, int R>
void run_waves(const int4* in, std::size_t nvec, long long* p, unsigned long long*, int, cudaStream_t s) {
  const std::size_t per = std::size_t{threads} * V * R;
  waves<V, R><<<static_cast<unsigned>((nvec + per - 1) / per), threads, 0, s>>>(in, nvec, p);
}
template <int BT, int V>
void run_striped_bt(const int4* in, std::size_t nvec, long long* p, unsigned long long*, int g, cudaStream_t s) {
  striped_bt<BT, V><<<g, BT, 0, s>>>(in, nvec, p);
}
template <int BT, int V>
void run_striped_pipe(const int4* in, std::size_t nvec, long long* p, unsigned long long*, int g, cudaStream_t s) {
  striped_pipe<BT, V><<<g, BT, 0, s>>>(in, nvec, p);
}
template <int V>
void run_waves_blocked(const int4* in, std::size_t nvec, long long* p, unsigned long long*, int, cudaStream_t s) {
  waves_blocked<V><<<static_cast<unsigned>(nvec / (std::size_t{threads} * V)), threads, 0, s>>>(in, nvec, p);
}
template <int V, int R>
void run_queue(const int4* in, std::size_t nvec, long long* p, unsigned long long* counter, int g, cudaStream_t s) {
  CHECK_CUDA(cudaMemsetAsync(counter, 0, 8, s));
  queue<V, R><<<g, threads, 0, s>>>(in, nvec, p, counter);
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 9;
  std::vector<int> log_sizes = {24, 26, 28};
  if (argc > 2) {
    log_sizes.clear();
    for (std::string s = argv[2]; !s.empty();) {
      const auto comma = s.find(',');
      log_sizes.push_back(std::stoi(s.substr(0, comma)));
      s = comma == std::string::npos ? "" : s.substr(comma + 1);
    }
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double peak = harness_common::peak_gb_per_s();
  std::printf("device %s peak %.0f GB/s, %d SMs\n", prop.name, peak, prop.multiProcessorCount);
  const int sms = prop.multiProcessorCount;

  // names: <schedule><blocks per SM of a one-wave grid>x<V loads in flight>, or waves<V>x<R rounds per block>,
  // queue<blocks per SM>x<V>r<R>
  std::vector<row> rows = {
      {"cub", nullptr, false}, {"cubseg4096", nullptr, false}, {"lib", nullptr, false},
      {"s512_4x4", run_striped_bt<512, 4>, true}, {"s512_3x4", run_striped_bt<512, 4>, true},
      {"s512_2x8", run_striped_bt<512, 8>, true}, {"s128_8x8", run_striped_bt<128, 8>, true},
      {"wblocked4", run_waves_blocked<4>, false},
      {"p512_4x2", run_striped_pipe<512, 2>, true}, {"p512_3x4", run_striped_pipe<512, 4>, true},
      {"p256_8x2", run_striped_pipe<256, 2>, true}, {"p256_6x4", run_striped_pipe<256, 4>, true},
      {"contig4x4", run_contig<4>, true},   {"contig4x8", run_contig<8>, true},
      {"striped4x4", run_striped<4>, true}, {"striped8x4", run_striped<4>, true},
      {"striped4x8", run_striped<8>, true},
      {"waves4x1", run_waves<4, 1>, false}, {"waves4x2", run_waves<4, 2>, false},
      {"waves4x4", run_waves<4, 4>, false}, {"waves4x8", run_waves<4, 8>, false},
      {"waves8x1", run_waves<8, 1>, false}, {"waves8x2", run_waves<8, 2>, false},
      {"queue4x4r2", run_queue<4, 2>, true}, {"queue4x4r8", run_queue<4, 8>, true},
      {"queue8x4r2", run_queue<4, 2>, true}, {"queue4x8r2", run_queue<8, 2>, true},
  };
  // the occupancy of each kernel, printed, so that a one-wave row that asks for more blocks than fit says so
  const std::vector<const void*> kernels = {
      nullptr, nullptr, nullptr, (const void*)striped_bt<512, 4>, (const void*)striped_bt<512, 4>,
      (const void*)striped_bt<512, 8>, (const void*)striped_bt<128, 8>, (const void*)waves_blocked<4>,
      (const void*)striped_pipe<512, 2>, (const void*)striped_pipe<512, 4>, (const void*)striped_pipe<256, 2>,
      (const void*)striped_pipe<256, 4>,
      (const void*)contig<4>, (const void*)contig<8>, (const void*)striped<4>, (const void*)striped<4>,
      (const void*)striped<8>, (const void*)waves<4, 1>, (const void*)waves<4, 2>, (const void*)waves<4, 4>,
      (const void*)waves<4, 8>, (const void*)waves<8, 1>, (const void*)waves<8, 2>, (const void*)queue<4, 2>,
      (const void*)queue<4, 8>, (const void*)queue<4, 2>, (const void*)queue<8, 2>};
  std::vector<int> per_sm(rows.size(), 0);
  for (std::size_t r = 3; r < rows.size(); ++r) {
    // names of the block-size rows: s<threads>_<blocks per SM>x<V>
    const bool bt = (rows[r].name[0] == 's' && rows[r].name[1] != 't') || rows[r].name[0] == 'p';
    const int block = bt ? std::stoi(rows[r].name.substr(1)) : threads;
    int fits = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, kernels[r], block, 0));
    int asked = 4;
    for (char c : bt ? rows[r].name.substr(rows[r].name.find('_')) : rows[r].name)
      if (c >= '0' && c <= '9') {
        asked = c - '0';
        break;
      }
    per_sm[r] = std::min(asked, fits);
    std::printf("%-12s resident blocks/SM %d%s\n", rows[r].name.c_str(), fits,
                rows[r].one_wave ? (" (one-wave grid " + std::to_string(per_sm[r]) + " x SMs)").c_str() : "");
  }

  const std::size_t max_n = std::size_t{1} << *std::max_element(log_sizes.begin(), log_sizes.end());
  std::vector<int> h(max_n);
  unsigned x = 12345;
  for (auto& v : h) v = static_cast<int>((x = x * 1664525u + 1013904223u) >> 8) % 1000 - 500;
  int* in;
  int* cub_out;
  int* sink;
  long long* partials;
  unsigned long long* counter;
  int4* flush;
  const std::size_t flush_n = (std::size_t{256} << 20) / 16;
  const std::size_t max_partials = max_n / (threads * 4) + 1;
  CHECK_CUDA(cudaMalloc(&in, max_n * 4));
  CHECK_CUDA(cudaMalloc(&cub_out, 4));
  CHECK_CUDA(cudaMalloc(&sink, 4));
  CHECK_CUDA(cudaMalloc(&partials, max_partials * 8));
  CHECK_CUDA(cudaMalloc(&counter, 8));
  CHECK_CUDA(cudaMalloc(&flush, flush_n * 16));
  CHECK_CUDA(cudaMemcpy(in, h.data(), max_n * 4, cudaMemcpyHostToDevice));
  std::size_t cub_bytes = 0;
  CHECK_CUDA(cub::DeviceReduce::Sum(nullptr, cub_bytes, in, cub_out, static_cast<int>(max_n)));
  // cub::DeviceSegmentedReduce::Sum over uniform segments of 4096 (the issue's reference shape)
  constexpr int seg_len = 4096;
  const int max_segs = static_cast<int>(max_n / seg_len);
  std::vector<int> h_offsets(max_segs + 1);
  for (int s = 0; s <= max_segs; ++s) h_offsets[s] = s * seg_len;
  int *seg_offsets, *seg_out;
  CHECK_CUDA(cudaMalloc(&seg_offsets, (max_segs + 1) * 4));
  CHECK_CUDA(cudaMalloc(&seg_out, max_segs * 4));
  CHECK_CUDA(cudaMemcpy(seg_offsets, h_offsets.data(), (max_segs + 1) * 4, cudaMemcpyHostToDevice));
  std::size_t seg_bytes = 0;
  CHECK_CUDA(cub::DeviceSegmentedReduce::Sum(nullptr, seg_bytes, in, seg_out, max_segs, seg_offsets, seg_offsets + 1));
  cub_bytes = std::max(cub_bytes, seg_bytes);
  void* cub_temp;
  CHECK_CUDA(cudaMalloc(&cub_temp, cub_bytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));

  for (int lg : log_sizes) {
    const std::size_t n = std::size_t{1} << lg, nvec = n / 4;
    long long want = 0;
    for (std::size_t i = 0; i < n; ++i) want += h[i];
    const int want32 = static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(want)));
    std::vector<std::vector<float>> times(rows.size());
    std::vector<int> order(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) order[r] = static_cast<int>(r);
    for (int k = 0; k <= samples; ++k) {
      // a new order each round (rotations of the list, reversed every other round)
      std::rotate(order.begin(), order.begin() + 1, order.end());
      if (k % 2) std::reverse(order.begin(), order.end());
      for (int r : order) {
        const auto& rw = rows[r];
        CHECK_CUDA(cudaMemsetAsync(flush, k, flush_n * 16, stream));
        touch<<<528, 512, 0, stream>>>(flush, flush_n, sink);
        CHECK_CUDA(cudaMemsetAsync(partials, 0, max_partials * 8, stream));
        if (!rw.launch) CHECK_CUDA(cudaMemsetAsync(counter, 0, 8, stream));  // same stream work as the queue rows
        CHECK_CUDA(cudaEventRecord(start, stream));
        if (rw.launch) {
          rw.launch(reinterpret_cast<const int4*>(in), nvec, partials, counter, per_sm[r] * sms, stream);
        } else if (r == 2) {
          reducelab::reduce(in, n, cub_out, reducelab::functors::plus{}, stream);
        } else if (r == 0) {
          CHECK_CUDA(cub::DeviceReduce::Sum(cub_temp, cub_bytes, in, cub_out, static_cast<int>(n), stream));
        } else {
          const int segs = static_cast<int>(n / seg_len);
          CHECK_CUDA(cub::DeviceSegmentedReduce::Sum(cub_temp, cub_bytes, in, seg_out, segs, seg_offsets,
                                                     seg_offsets + 1, stream));
        }
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaGetLastError());
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (k > 0) times[r].push_back(ms * 1000);
        if (k == 0) {
          int got = 0;
          if (rw.launch) {
            std::vector<long long> p(max_partials);
            CHECK_CUDA(cudaMemcpy(p.data(), partials, max_partials * 8, cudaMemcpyDeviceToHost));
            long long s = 0;
            for (long long v : p) s += v;
            got = static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(s)));
          } else if (r == 0 || r == 2) {
            CHECK_CUDA(cudaMemcpy(&got, cub_out, 4, cudaMemcpyDeviceToHost));
          } else {
            std::vector<int> o(n / seg_len);
            CHECK_CUDA(cudaMemcpy(o.data(), seg_out, o.size() * 4, cudaMemcpyDeviceToHost));
            unsigned s = 0;
            for (int v : o) s += static_cast<unsigned>(v);
            got = static_cast<int>(s);
          }
          if (got != want32) std::printf("  %s n=2^%d WRONG: got %d want %d\n", rw.name.c_str(), lg, got, want32);
        }
      }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      auto t = times[r];
      std::sort(t.begin(), t.end());
      const double med = t[t.size() / 2];
      std::printf("n=2^%d %-12s %9.2f us  p10 %9.2f p90 %9.2f  %6.1f %% peak\n", lg, rows[r].name.c_str(), med,
                  t[t.size() / 10], t[t.size() * 9 / 10], 100.0 * n * 4 / (med * 1e-6) / 1e9 / peak);
    }
  }
  return 0;
}
