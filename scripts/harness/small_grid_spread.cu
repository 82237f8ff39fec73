// Does spreading a small multi-block input over more SMs shorten reducelab::reduce at 2^15-2^20 (issue 12's 1.40x at
// 2^14-2^18)? The sm90 shape reads 32 KiB a block (512 threads x 4 loads for 4-byte values; 256 x 4 for 8-byte ones),
// so 2^16 int32 takes 8 SMs and 2^16 doubles 32. Same run, the project's timing engine (cold, held stream,
// interleaved rounds), detail::launch under policies that differ only in the multi-block shape (the one-block path,
// grid caps and pass blocks as sm90's), each with its finishing block, and CUB. Not part of the build or the tests.
// Results are checked against the host's (exact for int32, 1e-9 relative for double).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/small_grid_spread.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o small_grid_spread
//   run:            ./small_grid_spread [REPEATS=2] [ROUNDS=30]
#include "comparisons/timing/engine.hpp"
#include "scripts/harness/engine_rows.hpp"
#include "scripts/harness/sum_inputs.hpp"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/reduce.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace reducelab;

namespace {

/// sm90's policy for SizeClass with the multi-block shape Threads x Vectors instead.
template <std::size_t SizeClass, int Threads, int Vectors>
struct shaped : tuning::policy<Threads, Vectors, tuning::sm90<SizeClass>::blocks_per_sm,
                               tuning::sm90<SizeClass>::single_block_threads,
                               tuning::sm90<SizeClass>::single_block_max_bytes,
                               tuning::sm90<SizeClass>::single_block_vectors, 0, 0,
                               tuning::sm90<SizeClass>::direct_fold_blocks_per_sm> {};

template <class T, class... Policies>
void run(const char* name, const std::vector<int>& log_sizes, int rounds, harness_rows::timed_stream& timed,
         const std::vector<std::string>& labels) {
  using OpT = functors::plus;
  const auto dev = detail::current_device_properties();
  for (int lg : log_sizes) {
    const std::size_t n = std::size_t{1} << lg;
    const std::vector<T> host = harness_sums::values_for<T>(n);
    T* in = nullptr;
    T* out = nullptr;
    cudaMalloc(&in, n * sizeof(T));
    cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    constexpr int rows = sizeof...(Policies);
    cudaMalloc(&out, (rows + 1) * sizeof(T));
    std::vector<void*> ws;
    std::vector<timing::timed_work> w;
    std::string grids;
    int i = 0;
    (
        [&] {
          void* p = nullptr;
          cudaMalloc(&p, detail::workspace_bytes_for<Policies, OpT, T>(n, dev) + 16);
          ws.push_back(p);
          T* o = out + i;
          unsigned grid = 1;
          if (!detail::takes_single_block<Policies, T>(n)) detail::multi_block_plan<Policies, OpT>(in, n, dev, grid);
          grids += " " + labels[i] + ":" + std::to_string(grid);
          w.push_back({labels[i], false, [=, &dev](cudaStream_t st) { detail::launch<Policies>(in, n, o, p, OpT{}, st, dev); }});
          ++i;
        }(),
        ...);
    void* ws_cub = nullptr;
    std::size_t cub_bytes = 0;
    cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, out, static_cast<long long>(n), OpT{}, T{});
    cudaMalloc(&ws_cub, cub_bytes);
    T* o_cub = out + rows;
    w.push_back({"cub", false, [=](cudaStream_t st) mutable {
                   cub::DeviceReduce::Reduce(ws_cub, cub_bytes, in, o_cub, static_cast<long long>(n), OpT{}, T{}, st);
                 }});
    for (auto& x : w) x.run(timed.stream);
    if (cudaStreamSynchronize(timed.stream) != cudaSuccess) {
      std::printf("%s n=2^%d: CUDA error\n", name, lg);
      std::exit(1);
    }
    std::vector<T> r(rows + 1);
    cudaMemcpy(r.data(), out, (rows + 1) * sizeof(T), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (T x : r) ok = ok && harness_sums::agrees(x, host);
    harness_rows::measure_and_print(timed.engine, w, rounds,
                                    std::string(name) + " n=2^" + std::to_string(lg) + grids + (ok ? " ok" : " WRONG"));
    cudaFree(in);
    cudaFree(out);
    for (void* p : ws) cudaFree(p);
    cudaFree(ws_cub);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 30;
  harness_rows::timed_stream timed;
  for (int rep = 0; rep < repeats; ++rep) {
    run<std::int32_t, tuning::sm90<4>, shaped<4, 512, 2>, shaped<4, 512, 1>, shaped<4, 256, 2>, shaped<4, 128, 4>,
        shaped<4, 256, 1>>("plus/int32", {15, 16, 17, 18, 20}, rounds, timed,
                           {"sm90_512x4", "512x2", "512x1", "256x2", "128x4", "256x1"});
    run<double, tuning::sm90<8>, shaped<8, 256, 2>, shaped<8, 256, 1>, shaped<8, 128, 2>, shaped<8, 128, 4>,
        shaped<8, 512, 1>>("plus/double", {13, 14, 15, 16, 18, 20}, rounds, timed,
                           {"sm90_256x4", "256x2", "256x1", "128x2", "128x4", "512x1"});
  }
}
