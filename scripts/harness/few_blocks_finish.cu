// Same-run harness for kernels::single_pass_few_blocks (a non-commutative functor's grids of 2-33 blocks, whose last
// block folds the other partials in its first warp) against single_pass at the same grid and plan (the last block's
// barrier and tree over its warps, the kernel reducelab::reduce launched there before). Not part of the build or of
// the tests. Same run, the project's timing engine (cold, held stream, 30 interleaved rounds), per value type and n:
//   large       kernels::single_pass<policy> launched directly with the dispatch's plan (the kernel before)
//   lib         reducelab's launch (detail::launch under its sm90 policy): single_pass_few_blocks up to 33 blocks
//   plus_f64    (affine32 only) plus over doubles, the same bytes: the order goal's commutative 8-byte reference
//   max_f64     (affine32 only) maximum over the same doubles
// Sizes 2^13-2^16 give 4-32 blocks for both value sizes under sm90; 2^17 and 2^18 run single_pass in both rows (a
// control: the two rows should tie). Each row's result is compared bytewise with the host's in-order fold.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/few_blocks_finish.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o few_blocks_finish
//   run:            ./few_blocks_finish [REPEATS]
#include "comparisons/timing/engine.hpp"
#include "scripts/harness/engine_rows.hpp"
#include "scripts/harness/order_inputs.hpp"
#include "functors/affine_compose.cuh"
#include "functors/maximum.cuh"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/reduce.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace reducelab;

namespace {

void* device_bytes(std::size_t bytes) {
  void* d = nullptr;
  cudaMalloc(&d, bytes < 16 ? 16 : bytes);
  return d;
}

/// The multi-block launch of detail::launch, always through single_pass (the kernel before single_pass_few_blocks).
template <class PolicyT, class OpT, class T>
void launch_single_pass(const T* in, std::size_t n, T* out, void* workspace, OpT op, cudaStream_t stream,
                        const detail::device_properties& dev) {
  unsigned grid = 1;
  const kernels::single_pass_plan plan = detail::make_plan<PolicyT::block_threads, PolicyT::vectors_per_thread>(
      in, n, detail::grid_cap<PolicyT, OpT, T>(dev), grid);
  detail::multi_block_kernel<PolicyT, OpT, T>()<<<grid, PolicyT::block_threads, 0, stream>>>(
      in, plan, out, static_cast<grid::tagged_partial<T>*>(workspace), detail::next_epoch(), op);
}

template <class PolicyT, class OpT, class T>
unsigned grid_of(const T* in, std::size_t n, const detail::device_properties& dev) {
  unsigned grid = 1;
  detail::make_plan<PolicyT::block_threads, PolicyT::vectors_per_thread>(in, n, detail::grid_cap<PolicyT, OpT, T>(dev),
                                                                         grid);
  return grid;
}

template <class U>
void run(const char* name, int repeats) {
  using T = functors::affine_map<U>;
  using OpT = functors::affine_compose;
  using P = tuning::sm90<tuning::size_class(sizeof(T))>;
  constexpr bool with_doubles = sizeof(T) == sizeof(double);
  harness_rows::timed_stream timed;
  const auto dev = detail::current_device_properties();
  const std::size_t max_n = std::size_t{1} << 18;
  const harness_rows::order_inputs<U> inputs(max_n, 7);
  const T* in = inputs.device_maps;
  const double* in_d = inputs.device_doubles;
  T* out = static_cast<T*>(device_bytes(2 * sizeof(T)));
  double* out_d = static_cast<double*>(device_bytes(2 * sizeof(double)));
  using PD = tuning::sm90<tuning::size_class(sizeof(double))>;
  void* ws_large = device_bytes(detail::workspace_bytes_for<P, OpT, T>(max_n, dev));
  void* ws_lib = device_bytes(detail::workspace_bytes_for<P, OpT, T>(max_n, dev));
  void* ws_plus = device_bytes(detail::workspace_bytes_for<PD, functors::plus, double>(max_n, dev));
  void* ws_max = device_bytes(detail::workspace_bytes_for<PD, functors::maximum, double>(max_n, dev));
  for (int rep = 0; rep < repeats; ++rep)
    for (int lg : {13, 14, 15, 16, 17, 18}) {
      const std::size_t n = std::size_t{1} << lg;
      std::vector<timing::timed_work> w;
      w.push_back({"large", false, [&, n](cudaStream_t st) { launch_single_pass<P>(in, n, out, ws_large, OpT{}, st, dev); }});
      w.push_back({"lib", false, [&, n](cudaStream_t st) { detail::launch<P>(in, n, out + 1, ws_lib, OpT{}, st, dev); }});
      if constexpr (with_doubles) {
        w.push_back({"plus_f64", false, [&, n](cudaStream_t st) {
                       detail::launch<PD>(in_d, n, out_d, ws_plus, functors::plus{}, st, dev);
                     }});
        w.push_back({"max_f64", false, [&, n](cudaStream_t st) {
                       detail::launch<PD>(in_d, n, out_d + 1, ws_max, functors::maximum{}, st, dev);
                     }});
      }
      for (auto& x : w) x.run(timed.stream);
      const cudaError_t e = cudaStreamSynchronize(timed.stream);
      if (e != cudaSuccess) {
        std::printf("%s n=2^%d: %s\n", name, lg, cudaGetErrorString(e));
        std::exit(1);
      }
      T r[2];
      cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
      const T expected = inputs.in_order(n);
      const bool ok = std::memcmp(&r[0], &expected, sizeof(T)) == 0 && std::memcmp(&r[1], &expected, sizeof(T)) == 0;
      harness_rows::measure_and_print(timed.engine, w, 30,
                                      std::string(name) + " n=2^" + std::to_string(lg) + " grid=" +
                                          std::to_string(grid_of<P, OpT, T>(in, n, dev)) + (ok ? " ok" : " WRONG"));
    }
  cudaFree(out);
  cudaFree(out_d);
  cudaFree(ws_large);
  cudaFree(ws_lib);
  cudaFree(ws_plus);
  cudaFree(ws_max);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 2;
  run<std::uint32_t>("affine_compose/affine32", repeats);
  run<std::uint64_t>("affine_compose/affine64", repeats);
}
