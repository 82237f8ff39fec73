// Same-run harness: why the one-block path lost to CUB's one-tile kernel at 2^12 4-byte values (plus/int32).
// Not part of the build or of the tests. Same run, the project's timing engine (cold, held stream, 40 rounds):
//   cub          cub::DeviceReduce::Reduce
//   lib          the library's launch under the sm90 4-byte policy (one block of 512 up to 32 KiB)
//   lib1b256/1024 the same with one block of 256 or 1024 threads
//   A512x2, A256x4  the library's in-order tile path alone, as a kernel of its own (no scalar path, no grid code)
//   B256x4, B512x2, B1024x1  a direct fold: each thread folds its own 16-byte vectors (commutative functors)
// Inputs are whole tiles from an aligned pointer (no head, no tail); every row's result is checked against CUB's.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/one_block_kernels.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o one_block_kernels
#include "comparisons/timing/engine.hpp"
#include "scripts/harness/engine_rows.hpp"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/reduce.cuh"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace reducelab;

// (A) the library's vector path, one block only: in-order stage, no scalar / multi-block code.
template <int Threads, int V, class OpT, class T>
__global__ void __launch_bounds__(Threads) lean_inorder(const T* __restrict__ in, std::size_t tiles, T* out, OpT op) {
  using stage_t = agent::warp_stage<agent::lane_vectors<T, V>>;
  __shared__ stage_t stages[Threads / 32];
  __shared__ block::reduce_storage<T, Threads> red;
  const int warp_id = threadIdx.x / 32;
  constexpr int warps = Threads / 32;
  const std::size_t per_warp = (tiles + warps - 1) / warps;
  const std::size_t first = std::min<std::size_t>(per_warp * warp_id, tiles);
  const std::size_t last = std::min<std::size_t>(first + per_warp, tiles);
  T value = agent::reduce_warp_tiles<V, T>(reinterpret_cast<const uint4*>(in), first, last, 1, op, stages[warp_id]);
  T r = block::combine_warp_leaders<Threads>(value, op, red);
  if (threadIdx.x == 0) *out = r;
}

// (B) commutative direct fold, CUB's shape: each thread loads V int4 (strided by the block), folds them itself.
template <int Threads, int V, class OpT>
__global__ void __launch_bounds__(Threads) lean_direct(const int* __restrict__ in, std::size_t n, int* out, OpT op) {
  __shared__ block::reduce_storage<int, Threads> red;
  const uint4* v = reinterpret_cast<const uint4*>(in);
  const std::size_t vectors = n / 4;
  int acc = 0;
  for (std::size_t base = 0; base < vectors; base += std::size_t{Threads} * V) {
    uint4 r[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::size_t i = base + j * Threads + threadIdx.x;
      r[j] = i < vectors ? __ldg(v + i) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) acc = op(op(acc, (int)r[j].x), op(op((int)r[j].y, (int)r[j].z), (int)r[j].w));
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) acc = op(acc, __shfl_xor_sync(~0u, acc, o));
  int r = block::combine_warp_leaders<Threads>(acc, op, red);
  if (threadIdx.x == 0) *out = r;
}

int main() {
  using OpT = functors::plus;
  using T = int;
  harness_rows::timed_stream timed;
  const cudaStream_t s = timed.stream;
  timing::engine& eng = timed.engine;
  const std::size_t max_n = 1 << 14;
  std::vector<T> h(max_n);
  std::mt19937 rng(3);
  for (auto& x : h) x = static_cast<int>(rng() % 2001) - 1000;
  T *in, *out;
  cudaMalloc(&in, max_n * sizeof(T));
  cudaMalloc(&out, 16 * sizeof(T));
  cudaMemcpy(in, h.data(), max_n * sizeof(T), cudaMemcpyHostToDevice);
  std::size_t cub_bytes = 0;
  cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, out, (long long)max_n, OpT{}, 0);
  void* cub_ws;
  cudaMalloc(&cub_ws, cub_bytes);
  void* ws;
  cudaMalloc(&ws, 1 << 20);
  cudaMemset(ws, 0, 1 << 20);
  const auto dev = detail::current_device_properties();
  using P = tuning::sm90<4>;
  using P256 = tuning::policy<512, 2, 0, 256, 65536>;  // one block of 256 x 2 vectors
  using P1024 = tuning::policy<512, 2, 0, 1024, 65536>;
  for (int rep = 0; rep < 2; ++rep)
  for (std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 11, std::size_t{1} << 12, std::size_t{1} << 13}) {
    std::vector<timing::timed_work> w;
    w.push_back({"cub", false, [&, n](cudaStream_t st) { std::size_t b = cub_bytes; cub::DeviceReduce::Reduce(cub_ws, b, in, out, (long long)n, OpT{}, 0, st); }});
    w.push_back({"lib", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out + 1, ws, OpT{}, st, dev); }});
    w.push_back({"lib1b256", false, [&, n](cudaStream_t st) { detail::launch<P256>(in, n, out + 2, ws, OpT{}, st, dev); }});
    w.push_back({"lib1b1024", false, [&, n](cudaStream_t st) { detail::launch<P1024>(in, n, out + 3, ws, OpT{}, st, dev); }});
    w.push_back({"A512x2", false, [&, n](cudaStream_t st) { lean_inorder<512, 2><<<1, 512, 0, st>>>(in, n / 256, out + 4, OpT{}); }});
    w.push_back({"A256x4", false, [&, n](cudaStream_t st) { lean_inorder<256, 4><<<1, 256, 0, st>>>(in, n / 512, out + 5, OpT{}); }});
    w.push_back({"B256x4", false, [&, n](cudaStream_t st) { lean_direct<256, 4><<<1, 256, 0, st>>>(in, n, out + 6, OpT{}); }});
    w.push_back({"B512x2", false, [&, n](cudaStream_t st) { lean_direct<512, 2><<<1, 512, 0, st>>>(in, n, out + 7, OpT{}); }});
    w.push_back({"B1024x1", false, [&, n](cudaStream_t st) { lean_direct<1024, 1><<<1, 1024, 0, st>>>(in, n, out + 8, OpT{}); }});
    for (auto& x : w) x.run(s);
    cudaStreamSynchronize(s);
    T r[9];
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 1; i < 9; ++i) ok = ok && r[i] == r[0];
    harness_rows::measure_and_print(eng, w, 40,
                                    "n=2^" + std::to_string(__builtin_ctzll(n)) + (ok ? " ok " : " WRONG "));
  }
}
