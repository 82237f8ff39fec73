// Where the time of reducelab::reduce's multi-block launch goes at 2^15-2^22 (issue 12: the finish measured with
// Nsight Compute in results/NVIDIA_H200-lib/ncu-69fe91e.md but not timed apart). The direct fold
// (kernels/single_pass.cuh) with its dispatch's grid and plan, taken apart, same run, the project's timing engine
// (cold, held stream, interleaved rounds), per value type and n:
//   lib        reducelab's launch (detail::launch under its sm90 policy): body, publication, the last block's wait
//              and fold, the result
//   no_wait    the same body; every block publishes its partial, the last block too, and no block waits or folds
//              (lib - no_wait: the finish)
//   last_idle  the last block reads nothing and only waits for and folds the others' partials (its result lacks the
//              last block's share: timing only; lib - last_idle: how much the last block's own body delays it)
//   handshake  no block reads the input: every block publishes the identity and the last block waits and folds
//              (the launch, the publication and the wait alone)
//   empty      an empty kernel of the same grid and block size (the launch alone)
//   cub        cub::DeviceReduce::Reduce, two launches (workspace allocated once)
// Not part of the build or of the tests. lib's and cub's results are checked against the host's: exact for int32,
// within 1e-9 relative for double (a wrong fold is off by whole values).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/finish_parts.cu comparisons/timing/engine.cpp comparisons/timing/l2_flush.cu \
//                     comparisons/timing/stream_hold.cu comparisons/timing/statistics.cpp -o finish_parts
//   run:            ./finish_parts [REPEATS=2] [ROUNDS=30]
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

enum class part { no_wait, last_idle, handshake };

/// The direct fold's multi-block kernel with a part taken out (see the list above).
template <int BlockThreads, int VectorsPerThread, part Part, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    direct_fold_part(const T* __restrict__ in, kernels::single_pass_plan plan, T* out,
                     grid::tagged_partial<T>* partials, unsigned long long epoch, OpT op) {
  static_assert(kernels::folds_directly<OpT, T>, "the direct fold only");
  using storage_t = block::commutative_storage<T, BlockThreads, OpT>;
  __shared__ alignas(16) unsigned char raw[kernels::raw_storage_bytes<BlockThreads, VectorsPerThread, OpT, T>];
  auto& storage = *reinterpret_cast<storage_t*>(raw);
  const unsigned block = blockIdx.x;
  const bool last = block == gridDim.x - 1;
  T partial = identity_of<OpT, T>();
  const bool reads = Part == part::no_wait || (Part == part::last_idle && !last);
  if (reads)  // uniform over the block: every thread calls
    partial = kernels::block_vectors_partial<BlockThreads, VectorsPerThread>(in, plan, block, gridDim.x, block == 0,
                                                                             last, op, storage);
  if (Part == part::no_wait || !last) {
    if (threadIdx.x == 0) grid::publish(partials + block, partial, epoch);
    return;
  }
  // The last block, as single_pass's: warp 0, a partial a lane, up to 32 others; else every thread a run of them.
  const unsigned others = gridDim.x - 1;
  if (others <= warp::threads_per_warp) {
    if (threadIdx.x < warp::threads_per_warp) {
      const unsigned b_first = threadIdx.x < others ? threadIdx.x : others;
      const unsigned b_last = b_first + 1 < others ? b_first + 1 : others;
      const T mine = grid::fold_published<4>(identity_of<OpT, T>(), partials, b_first, b_last, epoch, op);
      const T earlier = block::reduce_lanes_commutative<BlockThreads>(mine, op, storage);
      if (threadIdx.x == 0) *out = op(earlier, partial);
    }
    return;
  }
  __syncthreads();
  const T earlier = kernels::fold_published_commutative<BlockThreads>(partials, 0, others, epoch, op, storage);
  if (threadIdx.x == 0) *out = op(earlier, partial);
}

__global__ void empty_kernel() {}

template <class T>
void run(const char* name, const std::vector<int>& log_sizes, int rounds, harness_rows::timed_stream& timed) {
  using OpT = functors::plus;
  using P = tuning::sm90<tuning::size_class(sizeof(T))>;
  constexpr int threads = P::block_threads;
  constexpr int vectors = P::vectors_per_thread;
  const auto dev = detail::current_device_properties();
  for (int lg : log_sizes) {
    const std::size_t n = std::size_t{1} << lg;
    const std::vector<T> host = harness_sums::values_for<T>(n);
    T* in = nullptr;
    T* out = nullptr;
    void* ws = nullptr;
    void* ws_part = nullptr;
    void* ws_cub = nullptr;
    std::size_t cub_bytes = 0;
    cudaMalloc(&in, n * sizeof(T));
    cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    cudaMalloc(&out, 8 * sizeof(T));
    cudaMalloc(&ws, detail::workspace_bytes_for<P, OpT, T>(n, dev) + 16);
    cudaMalloc(&ws_part, detail::workspace_bytes_for<P, OpT, T>(n, dev) + 16);
    cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, out, static_cast<long long>(n), OpT{}, T{});
    cudaMalloc(&ws_cub, cub_bytes);
    unsigned grid = 1;
    const kernels::single_pass_plan plan =
        detail::make_plan<threads, vectors>(in, n, detail::grid_cap<P, OpT, T>(dev), grid);
    auto* partials = static_cast<grid::tagged_partial<T>*>(ws_part);
    std::vector<timing::timed_work> w;
    w.push_back({"lib", false, [&](cudaStream_t st) { detail::launch<P>(in, n, out, ws, OpT{}, st, dev); }});
    w.push_back({"no_wait", false, [&](cudaStream_t st) {
                   direct_fold_part<threads, vectors, part::no_wait><<<grid, threads, 0, st>>>(
                       in, plan, out + 2, partials, detail::next_epoch(), OpT{});
                 }});
    w.push_back({"last_idle", false, [&](cudaStream_t st) {
                   direct_fold_part<threads, vectors, part::last_idle><<<grid, threads, 0, st>>>(
                       in, plan, out + 3, partials, detail::next_epoch(), OpT{});
                 }});
    w.push_back({"handshake", false, [&](cudaStream_t st) {
                   direct_fold_part<threads, vectors, part::handshake><<<grid, threads, 0, st>>>(
                       in, plan, out + 4, partials, detail::next_epoch(), OpT{});
                 }});
    w.push_back({"empty", false, [&](cudaStream_t st) { empty_kernel<<<grid, threads, 0, st>>>(); }});
    w.push_back({"cub", false, [&](cudaStream_t st) {
                   cub::DeviceReduce::Reduce(ws_cub, cub_bytes, in, out + 1, static_cast<long long>(n), OpT{}, T{},
                                             st);
                 }});
    for (auto& x : w) x.run(timed.stream);
    const cudaError_t e = cudaStreamSynchronize(timed.stream);
    if (e != cudaSuccess) {
      std::printf("%s n=2^%d: %s\n", name, lg, cudaGetErrorString(e));
      std::exit(1);
    }
    T r[2];
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    const bool ok = harness_sums::agrees(r[0], host) && harness_sums::agrees(r[1], host);
    harness_rows::measure_and_print(
        timed.engine, w, rounds,
        std::string(name) + " n=2^" + std::to_string(lg) + " grid=" + std::to_string(grid) + (ok ? " ok" : " WRONG"));
    cudaFree(in);
    cudaFree(out);
    cudaFree(ws);
    cudaFree(ws_part);
    cudaFree(ws_cub);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 30;
  harness_rows::timed_stream timed;
  for (int rep = 0; rep < repeats; ++rep) {
    run<std::int32_t>("plus/int32", {15, 16, 17, 18, 20, 22}, rounds, timed);
    run<double>("plus/double", {14, 15, 16, 18, 20, 22}, rounds, timed);
  }
}
