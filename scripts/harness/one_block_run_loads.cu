// Same-run harness: how many 16-byte loads the one-block kernel should keep in flight per thread at 2^10-2^12
// values of 8 and 16 bytes, for the thread runs of a non-commutative functor (agent::fold_thread_run) and for the
// direct fold of a commutative one (agent::fold_block_vectors). Not part of the build or of the tests. Same run, the
// project's timing engine (cold, held stream, 30 interleaved rounds of a line's rows), per value type and n:
//   lib      reducelab's launch under its sm90 policy (8 bytes: 512 threads x 2 loads; 16 bytes: 512 x 2)
//   512xV    the one-block kernel at 512 threads x V loads, launched directly as the dispatch does (V = 4, 8)
// A thread's run at 2^12 is 4 vectors for 8-byte values and 8 for 16-byte ones, which 2 loads at a time take in 2 and
// 4 round trips. affine_compose lines also time plus and maximum over doubles of the same bytes (policy), the order
// goal's reference. Every row's result is compared bytewise with the host's (in-order fold for affine_compose; for
// doubles the inputs are small integers, so every order gives the same bits).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/one_block_run_loads.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o one_block_run_loads
//   run:            ./one_block_run_loads [REPEATS]
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

/// The one-block kernel at 512 threads x V loads, launched as detail::launch launches it (a vector plan for one block).
template <int V, class OpT, class T>
void launch_one_block(const T* in, std::size_t n, T* out, OpT op, cudaStream_t stream) {
  unsigned grid = 1;
  const kernels::single_pass_plan plan = detail::make_plan<512, V>(in, n, 1, grid);
  kernels::one_block<512, V, OpT, T><<<1, 512, 0, stream>>>(in, plan, out, op);
}

template <class OpT, class T>
void add_shapes(std::vector<timing::timed_work>& w, const char* prefix, const T* in, std::size_t n, T* out,
                const detail::device_properties& dev) {
  using P = tuning::sm90<tuning::size_class(sizeof(T))>;
  const std::string p(prefix);
  w.push_back({p + "lib", false, [=](cudaStream_t st) { detail::launch<P>(in, n, out, nullptr, OpT{}, st, dev); }});
  w.push_back({p + "512x4", false, [=](cudaStream_t st) { launch_one_block<4>(in, n, out + 1, OpT{}, st); }});
  w.push_back({p + "512x8", false, [=](cudaStream_t st) { launch_one_block<8>(in, n, out + 2, OpT{}, st); }});
}

template <class T>
bool all_equal(const T* d_out, int rows, const T& expected) {
  std::vector<T> r(rows);
  cudaMemcpy(r.data(), d_out, rows * sizeof(T), cudaMemcpyDeviceToHost);
  for (const T& x : r)
    if (std::memcmp(&x, &expected, sizeof(T)) != 0) return false;
  return true;
}

template <class U>
void run(const char* name, int repeats) {
  using T = functors::affine_map<U>;
  using OpT = functors::affine_compose;
  constexpr bool with_doubles = sizeof(T) == sizeof(double);
  harness_rows::timed_stream timed;
  const auto dev = detail::current_device_properties();
  const std::size_t max_n = std::size_t{1} << 12;
  const harness_rows::order_inputs<U> inputs(max_n, 11);
  const std::vector<double>& hd = inputs.doubles;
  const T* in = inputs.device_maps;
  const double* in_d = inputs.device_doubles;
  T* out = nullptr;
  double* out_d = nullptr;
  cudaMalloc(&out, 3 * sizeof(T));
  cudaMalloc(&out_d, 6 * sizeof(double));
  for (int rep = 0; rep < repeats; ++rep)
    for (int lg : {10, 11, 12}) {
      const std::size_t n = std::size_t{1} << lg;
      std::vector<timing::timed_work> w;
      add_shapes<OpT>(w, "", in, n, out, dev);
      if constexpr (with_doubles) {
        add_shapes<functors::plus>(w, "plus_f64:", in_d, n, out_d, dev);
        add_shapes<functors::maximum>(w, "max_f64:", in_d, n, out_d + 3, dev);
      }
      for (auto& x : w) x.run(timed.stream);
      const cudaError_t e = cudaStreamSynchronize(timed.stream);
      if (e != cudaSuccess) {
        std::printf("%s n=2^%d: %s\n", name, lg, cudaGetErrorString(e));
        std::exit(1);
      }
      const T expected = inputs.in_order(n);
      bool ok = all_equal(out, 3, expected);
      if (with_doubles) {
        double sum = -0.0, top = identity_of<functors::maximum, double>();
        for (std::size_t i = 0; i < n; ++i) sum += hd[i], top = hd[i] > top ? hd[i] : top;
        ok = ok && all_equal(out_d, 3, sum) && all_equal(out_d + 3, 3, top);
      }
      harness_rows::measure_and_print(timed.engine, w, 30,
                                      std::string(name) + " n=2^" + std::to_string(lg) + (ok ? " ok" : " WRONG"));
    }
  cudaFree(out);
  cudaFree(out_d);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 2;
  run<std::uint32_t>("affine_compose/affine32", repeats);
  run<std::uint64_t>("affine_compose/affine64", repeats);
}
