// Same-run harness: which shape of the one-block path (threads x 16-byte loads per thread) is fastest at 2^10-2^13
// values, per value type, now that int32's warps reduce in one instruction and float's do not. Not part of the build
// or of the tests. Same run, the project's timing engine (cold, held stream, 30 rounds):
//   cub      cub::DeviceReduce::Reduce
//   lib      reducelab's launch under its sm90 policy
//   T x V    the same launch with the one-block path forced to T threads x V loads (multi-block fields unchanged)
// Inputs from an aligned pointer; every row's result is checked against CUB's (exactly for integers and argmax,
// to 1e-5 relative for floating point).
//
// Measured (NVIDIA H100 80GB HBM3, headers at e3365bb, two repetitions): at 2^12 4-byte values the policy's 512x4
// ties CUB (int32 4.06-4.10 against 4.06, float 4.35-4.38 against 4.35), and 256x4 and 512x2 take the same time;
// 128x4, 256x2 and 512x1 are 6-11 % slower there. For 8-byte values at 2^13 (64 KiB, past the policy's 32 KiB one-block
// limit, so `lib` runs the multi-block kernel) a forced one block is faster: plus/double 1024x1 4.86 and 512x4
// 5.02-5.06 against 5.92-5.95 for the policy. `reducelab tune` on the same binaries (e3365bb) still chose 512x2 up to
// 32 KiB for 8 bytes (its one-block crossover is scored over plus/double and affine_compose together); left as tuned.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/one_block_shapes.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o one_block_shapes
#include "comparisons/timing/engine.hpp"
#include "scripts/harness/engine_rows.hpp"
#include "functors/argmax.cuh"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/reduce.cuh"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace reducelab;

template <class T>
double as_number(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(x);
  } else {
    return static_cast<double>(x.value) * 1e6 + static_cast<double>(x.index);
  }
}

template <class OpT, class T, class MakeT>
void run(const char* name, MakeT make) {
  harness_rows::timed_stream timed;
  const cudaStream_t s = timed.stream;
  timing::engine& eng = timed.engine;
  const std::size_t max_n = std::size_t{1} << 13;
  std::vector<T> h(max_n);
  std::mt19937 rng(3);
  for (std::size_t i = 0; i < max_n; ++i) h[i] = make(rng, i);
  T *in, *out;
  cudaMalloc(&in, max_n * sizeof(T));
  cudaMalloc(&out, 16 * sizeof(T));
  cudaMemcpy(in, h.data(), max_n * sizeof(T), cudaMemcpyHostToDevice);
  std::size_t cub_bytes = 0;
  cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, out, (long long)max_n, OpT{}, identity_of<OpT, T>(), 0);
  void* cub_ws;
  cudaMalloc(&cub_ws, cub_bytes);
  void* ws;
  cudaMalloc(&ws, 1 << 20);
  cudaMemset(ws, 0, 1 << 20);
  const auto dev = detail::current_device_properties();
  using P = tuning::sm90<tuning::size_class(sizeof(T))>;
  // The policy P with its one-block path forced to Threads x V (up to 64 KiB, so every n here takes it).
  auto forced = [&](auto threads, auto v, int slot) {
    using F = tuning::policy<P::block_threads, P::vectors_per_thread, P::blocks_per_sm, decltype(threads)::value,
                             65536, decltype(v)::value>;
    return [&, slot](std::size_t n) {
      return timing::timed_work{std::to_string(decltype(threads)::value) + "x" + std::to_string(decltype(v)::value),
                                false, [&, n, slot](cudaStream_t st) {
                                  detail::launch<F>(in, n, out + slot, ws, OpT{}, st, dev);
                                }};
    };
  };
  using std::integral_constant;
  std::vector<std::function<timing::timed_work(std::size_t)>> shapes = {
      forced(integral_constant<int, 128>{}, integral_constant<int, 4>{}, 2),
      forced(integral_constant<int, 256>{}, integral_constant<int, 2>{}, 3),
      forced(integral_constant<int, 256>{}, integral_constant<int, 4>{}, 4),
      forced(integral_constant<int, 512>{}, integral_constant<int, 1>{}, 5),
      forced(integral_constant<int, 512>{}, integral_constant<int, 2>{}, 6),
      forced(integral_constant<int, 512>{}, integral_constant<int, 4>{}, 7),
      forced(integral_constant<int, 1024>{}, integral_constant<int, 1>{}, 8),
  };
  for (int rep = 0; rep < 2; ++rep)
    for (int lg : {10, 11, 12, 13}) {
      const std::size_t n = std::size_t{1} << lg;
      std::vector<timing::timed_work> w;
      w.push_back({"cub", false, [&, n](cudaStream_t st) {
                     std::size_t b = cub_bytes;
                     cub::DeviceReduce::Reduce(cub_ws, b, in, out, (long long)n, OpT{}, identity_of<OpT, T>(), st);
                   }});
      w.push_back({"lib", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out + 1, ws, OpT{}, st, dev); }});
      for (auto& shape : shapes) w.push_back(shape(n));
      for (auto& x : w) x.run(s);
      const cudaError_t e = cudaStreamSynchronize(s);
      if (e != cudaSuccess) std::printf("sync: %s\n", cudaGetErrorString(e));
      std::vector<T> r(w.size());
      cudaMemcpy(r.data(), out, r.size() * sizeof(T), cudaMemcpyDeviceToHost);
      bool ok = true;
      for (std::size_t i = 1; i < r.size(); ++i)
        ok = ok && std::fabs(as_number(r[i]) - as_number(r[0])) <= 1e-5 * std::fabs(as_number(r[0])) + 1e-3;
      harness_rows::measure_and_print(eng, w, 30,
                                      std::string(name) + " n=2^" + std::to_string(lg) + (ok ? " ok " : " WRONG "));
    }
}

int main() {
  auto small = [](auto& rng, std::size_t) { return static_cast<int>(rng() % 2001) - 1000; };
  run<functors::plus, int>("plus/int32", small);
  run<functors::plus, float>("plus/float", [&](auto& rng, std::size_t i) { return static_cast<float>(small(rng, i)); });
  run<functors::plus, double>("plus/double", [&](auto& rng, std::size_t i) { return static_cast<double>(small(rng, i)); });
  run<functors::argmax, functors::float_idx32>("argmax/float_idx32", [](auto& rng, std::size_t i) {
    return functors::float_idx32{static_cast<float>(rng() % 1000), static_cast<std::uint32_t>(i)};
  });
}
