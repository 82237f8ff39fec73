// Same-run harness: can one thread block cluster finish a mid-size reduction (2^14-2^18 values) faster than the
// library's one launch finished by the last block? Not part of the build or of the tests. Same run, the project's
// timing engine (cold, held stream, 30 rounds), plus over int32 and float:
//   cub          cub::DeviceReduce::Reduce
//   lib          reducelab::reduce's launch under the sm90 4-byte policy (blocks publish their partials to global
//                memory, the last block polls for them)
//   cl<C>x<T>x<V>  one cluster of C blocks of T threads, V 16-byte loads in flight per thread: each block folds its
//                passes directly (agent::fold_block_vectors, dealt round robin like the library's), combines its
//                threads (block::reduce_commutative), and stores its partial into block 0's shared memory
//                (distributed shared memory); after the cluster barrier block 0 folds the C partials in rank order.
// Inputs are whole passes from an aligned pointer (no head, no tail); every row's result is checked against CUB's
// (exactly for int32, to 1e-5 relative for float).
//
// Measured (NVIDIA H100 80GB HBM3, headers at 93c64bb, two repetitions, median us; the library's last block still used
// a shuffle tree then): one cluster beat the library only at 2^16, by 5 % for int32 (cl8x512x4 4.90-4.93 against
// 5.15-5.18) and 8 % for float (5.22-5.25 against 5.70-5.73); at 2^14 it tied (4.70-4.74 against 4.67-4.77 int32,
// 5.02 both float) and at 2^18 it lost or tied (best int32 cl16x1024x4 5.63-5.66 against 5.54-5.57; float 5.89-5.95
// against 5.92-6.08). CUB took 6.9-7.9. Not adopted: a third kernel path and its policy fields for one size band,
// where the last-lane combine of 0a3d298 since took part of the float gap (results/*-lib/block-combine-slots.txt).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/cluster_combine.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o cluster_combine
#include "comparisons/timing/engine.hpp"
#include "scripts/harness/engine_rows.hpp"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/reduce.cuh"

#include <cooperative_groups.h>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace reducelab;
namespace cg = cooperative_groups;

template <int Threads, int V, class OpT, class T>
__global__ void __launch_bounds__(Threads) one_cluster(const T* __restrict__ in, std::size_t n, T* out, OpT op) {
  __shared__ block::commutative_storage<T, Threads, OpT> red;
  __shared__ T cluster_partials[16];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned blocks = cluster.num_blocks();
  const std::size_t vectors = n / agent::values_per_vector<T>;
  T mine = agent::fold_block_vectors<Threads, V>(reinterpret_cast<const uint4*>(in), vectors, identity_of<OpT, T>(),
                                                 op, rank, blocks);
  const T partial = block::reduce_commutative<Threads>(mine, op, red);
  if (threadIdx.x == 0) *cluster.map_shared_rank(&cluster_partials[rank], 0) = partial;
  cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    T r = cluster_partials[0];
    for (unsigned b = 1; b < blocks; ++b) r = op(r, cluster_partials[b]);
    *out = r;
  }
}

template <int Threads, int V, class OpT, class T>
void launch_cluster(const T* in, std::size_t n, T* out, int c, cudaStream_t st) {
  auto kernel = one_cluster<Threads, V, OpT, T>;
  static bool once = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return true;
  }();
  (void)once;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(c);
  cfg.blockDim = dim3(Threads);
  cfg.stream = st;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = c;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, in, n, out, OpT{});
  if (e != cudaSuccess) std::printf("launch cl%d: %s\n", c, cudaGetErrorString(e));
}

template <class T>
void run(const char* type_name) {
  using OpT = functors::plus;
  harness_rows::timed_stream timed;
  const cudaStream_t s = timed.stream;
  timing::engine& eng = timed.engine;
  const std::size_t max_n = std::size_t{1} << 18;
  std::vector<T> h(max_n);
  std::mt19937 rng(3);
  for (auto& x : h) x = static_cast<T>(static_cast<int>(rng() % 2001) - 1000);
  T *in, *out;
  cudaMalloc(&in, max_n * sizeof(T));
  cudaMalloc(&out, 16 * sizeof(T));
  cudaMemcpy(in, h.data(), max_n * sizeof(T), cudaMemcpyHostToDevice);
  std::size_t cub_bytes = 0;
  cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, out, (long long)max_n, OpT{}, T{}, 0);
  void* cub_ws;
  cudaMalloc(&cub_ws, cub_bytes);
  void* ws;
  cudaMalloc(&ws, 1 << 20);
  cudaMemset(ws, 0, 1 << 20);
  const auto dev = detail::current_device_properties();
  using P = tuning::sm90<4>;
  for (int rep = 0; rep < 2; ++rep)
    for (int lg : {14, 16, 18}) {
      const std::size_t n = std::size_t{1} << lg;
      std::vector<timing::timed_work> w;
      w.push_back({"cub", false, [&, n](cudaStream_t st) {
                     std::size_t b = cub_bytes;
                     cub::DeviceReduce::Reduce(cub_ws, b, in, out, (long long)n, OpT{}, T{}, st);
                   }});
      w.push_back({"lib", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out + 1, ws, OpT{}, st, dev); }});
      // Cluster shapes: C blocks x threads x loads covering n in one pass where it can (2^14: 4096 vectors).
      const std::size_t vec = n / 4;
      const int c512x4 = static_cast<int>(std::min<std::size_t>(16, std::max<std::size_t>(1, vec / 2048)));
      const int c1024x4 = static_cast<int>(std::min<std::size_t>(16, std::max<std::size_t>(1, vec / 4096)));
      const int c1024x8 = static_cast<int>(std::min<std::size_t>(16, std::max<std::size_t>(1, vec / 8192)));
      std::vector<std::string> names = {"cl" + std::to_string(c512x4) + "x512x4", "cl" + std::to_string(c1024x4) + "x1024x4",
                                        "cl" + std::to_string(c1024x8) + "x1024x8", "cl8x512x4", "cl16x1024x4"};
      w.push_back({names[0], false, [&, n, c512x4](cudaStream_t st) { launch_cluster<512, 4, OpT>(in, n, out + 2, c512x4, st); }});
      w.push_back({names[1], false, [&, n, c1024x4](cudaStream_t st) { launch_cluster<1024, 4, OpT>(in, n, out + 3, c1024x4, st); }});
      w.push_back({names[2], false, [&, n, c1024x8](cudaStream_t st) { launch_cluster<1024, 8, OpT>(in, n, out + 4, c1024x8, st); }});
      w.push_back({names[3], false, [&, n](cudaStream_t st) { launch_cluster<512, 4, OpT>(in, n, out + 5, 8, st); }});
      w.push_back({names[4], false, [&, n](cudaStream_t st) { launch_cluster<1024, 4, OpT>(in, n, out + 6, 16, st); }});
      for (auto& x : w) x.run(s);
      cudaError_t e = cudaStreamSynchronize(s);
      if (e != cudaSuccess) std::printf("sync: %s\n", cudaGetErrorString(e));
      T r[7];
      cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
      bool ok = true;
      for (int i = 1; i < 7; ++i)
        ok = ok && std::fabs(static_cast<double>(r[i]) - static_cast<double>(r[0])) <=
                       1e-5 * std::fabs(static_cast<double>(r[0])) + 1e-3;
      harness_rows::measure_and_print(eng, w, 30,
                                      std::string(type_name) + " n=2^" + std::to_string(lg) + (ok ? " ok " : " WRONG "));
    }
}

int main() {
  run<int>("int32");
  run<float>("float");
}
