// Same-run harness: does the shared-memory carveout the driver picks for the one-block kernel cost time between
// launches? Nsight Compute (H100, stop 28) timed the one-block kernel for affine_compose/affine32 at 2^10 at 3.10 µs and
// plus/double's at 3.20, with a 64 KiB shared-memory configuration for the first and 32 KiB for the second, while the
// engine's medians put affine 0.3 µs behind plus/double. Not part of the build or of the tests. Same run, the project's
// timing engine (cold, held stream, 30 rounds), per functor/type and n:
//   cub     cub::DeviceReduce::Reduce (not run for affine_compose: CUB does not promise order)
//   lib     reducelab's launch under its sm90 policy
//   c0      the same launch through a copy of the one-block kernel whose preferred carveout is 0 % (most L1)
//   c100    the same through a copy whose preferred carveout is 100 % (most shared memory)
// The copies are the same kernel template over a functor type derived from the real one (tagged_op), so each has an
// attribute of its own and all rows run interleaved. Every lib/c0/c100 result is compared bytewise with lib's.
//
// Measured (NVIDIA H100 80GB HBM3, headers at f5b6a19 plus stop 28's experiment, whose one-block kernel is HEAD's;
// two repetitions, medians in µs, lib / c0 / c100): no carveout moves a row beyond the rows' spread. affine32 at 2^10
// 4.48 / 4.45 / 4.29 and 4.48 / 4.48 / 4.48; plus/double 4.35 / 4.35 / 4.35 and 4.35 / 4.32 / 4.32; plus/float at 2^12
// 4.32 / 4.35 / 4.32 (CUB 4.16) and 4.35 / 4.35 / 4.35 (CUB 4.32). Kept as the evidence
// (results/NVIDIA_H100_80GB_HBM3-lib/last-block-in-order.txt).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/one_block_carveout.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o one_block_carveout
#include "comparisons/timing/engine.hpp"
#include "scripts/harness/engine_rows.hpp"
#include "functors/affine_compose.cuh"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/reduce.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace reducelab;

/// The functor under another name: a kernel instantiation, and so a function attribute, of its own.
template <class BaseT, int Tag>
struct tagged_op : BaseT {};

template <class OpT, class T, class MakeT>
void run(const char* name, MakeT make, bool with_cub) {
  harness_rows::timed_stream timed;
  const cudaStream_t s = timed.stream;
  const std::size_t max_n = std::size_t{1} << 12;
  std::vector<T> h(max_n);
  std::mt19937 rng(5);
  for (std::size_t i = 0; i < max_n; ++i) h[i] = make(rng);
  T *in, *out;
  cudaMalloc(&in, max_n * sizeof(T));
  cudaMalloc(&out, 8 * sizeof(T));
  cudaMemcpy(in, h.data(), max_n * sizeof(T), cudaMemcpyHostToDevice);
  std::size_t cub_bytes = 0;
  cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, out, (long long)max_n, OpT{}, identity_of<OpT, T>(), 0);
  void* cub_ws;
  cudaMalloc(&cub_ws, cub_bytes);
  const auto dev = detail::current_device_properties();
  using P = tuning::sm90<tuning::size_class(sizeof(T))>;
  using op0 = tagged_op<OpT, 0>;
  using op100 = tagged_op<OpT, 100>;
  cudaFuncSetAttribute(detail::single_block_kernel<P, op0, T>(), cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(detail::single_block_kernel<P, op100, T>(), cudaFuncAttributePreferredSharedMemoryCarveout, 100);
  std::printf("%s: attributes %s\n", name, cudaGetErrorString(cudaGetLastError()));
  for (int rep = 0; rep < 2; ++rep)
    for (int lg : {10, 11, 12}) {
      const std::size_t n = std::size_t{1} << lg;
      std::vector<timing::timed_work> w;
      if (with_cub)
        w.push_back({"cub", false, [&, n](cudaStream_t st) {
                       std::size_t b = cub_bytes;
                       cub::DeviceReduce::Reduce(cub_ws, b, in, out + 3, (long long)n, OpT{}, identity_of<OpT, T>(), st);
                     }});
      w.push_back({"lib", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out, nullptr, OpT{}, st, dev); }});
      w.push_back({"c0", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out + 1, nullptr, op0{}, st, dev); }});
      w.push_back(
          {"c100", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out + 2, nullptr, op100{}, st, dev); }});
      for (auto& x : w) x.run(s);
      const cudaError_t e = cudaStreamSynchronize(s);
      if (e != cudaSuccess) std::printf("sync: %s\n", cudaGetErrorString(e));
      T r[3];
      cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
      const bool ok = std::memcmp(&r[0], &r[1], sizeof(T)) == 0 && std::memcmp(&r[0], &r[2], sizeof(T)) == 0;
      harness_rows::measure_and_print(timed.engine, w, 30,
                                      std::string(name) + " n=2^" + std::to_string(lg) + (ok ? " ok " : " WRONG "));
    }
}

int main() {
  auto small = [](auto& rng) { return static_cast<int>(rng() % 2001) - 1000; };
  run<functors::affine_compose, functors::affine32>(
      "affine_compose/affine32", [](auto& rng) { return functors::affine32{static_cast<std::uint32_t>(rng() | 1u),
                                                                          static_cast<std::uint32_t>(rng())}; },
      false);
  run<functors::plus, double>("plus/double", [&](auto& rng) { return static_cast<double>(small(rng)); }, true);
  run<functors::plus, float>("plus/float", [&](auto& rng) { return static_cast<float>(small(rng)); }, true);
  run<functors::plus, int>("plus/int32", small, true);
}
