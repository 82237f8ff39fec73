// Same-run A/B of reducelab::reduce's two grids for the direct fold (kernels/single_pass.cuh): the resident grid
// (blocks_per_sm x SMs, passes dealt round robin) against a block per pass finished in groups, both through
// reducelab::detail::launch with the sm90 policy of the value size, which differ only in pass_blocks_min_bytes
// (0 against 1 byte: every multi-block size takes the pass blocks) and pass_blocks_vectors (the policy's
// vectors_per_thread, 8 or 16 loads a thread: pass, pass8, pass16; for affine_compose, a non-commutative functor,
// runs of 1, 2 or 4 warp tiles of 4 loads per warp). It also checks the results: exact for the
// integer and logical functors, and for plus/double the two grids' results against a host sum in long double
// (the kernels' error bound is not this harness's business; a wrong fold would be off by whole values).
//
// Build here (sm_90):
//   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include -I src -I . -o pass_blocks \
//        scripts/harness/pass_blocks.cu
// Run: ./pass_blocks [samples=15] [log2 sizes, comma separated: 20,22,24,25,26,27,28]
// Cold like the other harnesses: a memset of 256 MiB then a read of it before each sample; the two rows of a size
// alternate within each round, in an order that flips every round; median and p10/p90 of the samples.
#include "functors/affine_compose.cuh"
#include "functors/argmax.cuh"
#include "functors/logical_or.cuh"
#include "functors/maximum.cuh"
#include "functors/plus.cuh"
#include "reducelab/reduce.cuh"
#include "scripts/harness/harness_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using harness_common::touch;
namespace fn = reducelab::functors;

namespace {

template <class P, int PassVectors>
struct with_pass_blocks
    : reducelab::tuning::policy<P::block_threads, P::vectors_per_thread, P::blocks_per_sm, P::single_block_threads,
                                P::single_block_max_bytes, P::single_block_vectors, 1, PassVectors> {};
template <class P>
struct resident_only
    : reducelab::tuning::policy<P::block_threads, P::vectors_per_thread, P::blocks_per_sm, P::single_block_threads,
                                P::single_block_max_bytes, P::single_block_vectors, 0> {};

template <class T>
std::vector<T> values_for(std::size_t n) {
  std::vector<T> v(n);
  std::mt19937_64 rng(n);
  if constexpr (std::is_same_v<T, std::int32_t>) {
    for (auto& x : v) x = static_cast<std::int32_t>(rng());
  } else if constexpr (std::is_same_v<T, double>) {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& x : v) x = d(rng);
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    // zeros but one byte near 7/11 of each size measured (logical_or is 1 only if the fold reaches it)
    for (int lg = 10; lg <= 40; ++lg)
      if ((std::size_t{1} << lg) <= n) v[((std::size_t{1} << lg) * 7) / 11] = 0x40;
  } else if constexpr (std::is_same_v<T, float>) {
    for (auto& x : v) x = static_cast<float>(static_cast<int>(rng() % 2000001) - 1000000);
  } else if constexpr (std::is_same_v<T, fn::affine32>) {
    for (auto& x : v) x = T{static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
  } else if constexpr (std::is_same_v<T, fn::float_idx32>) {  // (value, index), values with ties
    for (std::size_t i = 0; i < n; ++i) v[i] = T{static_cast<float>(rng() % 100000), static_cast<std::uint32_t>(i)};
  } else {  // argmax pairs: (value, index), values with ties
    for (std::size_t i = 0; i < n; ++i) v[i] = T{static_cast<double>(rng() % 100000), i};
  }
  return v;
}

constexpr int rows = 4;  // resident; pass blocks of the policy's vectors_per_thread, of 8 and of 16 loads a thread
const char* row_names[rows] = {"resident", "pass", "pass8", "pass16"};

template <class T, class OpT>
std::string check_results(const std::vector<T>& host, std::size_t n, OpT op, const T (&got)[2][rows]) {
  std::string s;
  if constexpr (std::is_same_v<T, double>) {
    long double exact = 0, sum_abs = 0;
    for (std::size_t i = 0; i < n; ++i) exact += host[i], sum_abs += std::fabs(host[i]);
    for (int row = 0; row < rows; ++row)
      if (std::fabs(static_cast<long double>(got[0][row]) - exact) > 1e-12L * sum_abs) s += "WRONG ";
  } else {
    T want = reducelab::identity_of<OpT, T>();
    for (std::size_t i = 0; i < n; ++i) want = op(want, host[i]);
    for (int row = 0; row < rows; ++row)
      if (std::memcmp(&got[0][row], &want, sizeof(T)) != 0) s += "WRONG ";
  }
  for (int row = 0; row < rows; ++row)
    if (std::memcmp(&got[0][row], &got[1][row], sizeof(T)) != 0) s += "NOT-REPRODUCIBLE ";
  return s.empty() ? "ok" : s;
}

template <class P_res, class P_pass, class OpT, class T>
std::pair<unsigned, unsigned> grid_pair(const T* in, std::size_t n, const reducelab::detail::device_properties& dev) {
  unsigned resident = 1;
  if (!reducelab::detail::takes_single_block<P_res, T>(n)) {
    const std::size_t cap = reducelab::detail::grid_cap<P_res, OpT, T>(dev);
    const auto plan =
        reducelab::detail::make_plan<P_res::block_threads, P_res::vectors_per_thread>(in, n, cap, resident);
    std::size_t units = plan.tiles;  // warp tiles, or the direct fold's vectors
    if constexpr (reducelab::kernels::folds_directly<OpT, T>) units = (n - plan.head) / reducelab::agent::values_per_vector<T>;
    const std::size_t pass = reducelab::detail::pass_blocks_for<P_pass, OpT, T>(n, units);
    return {resident, pass == 0 ? resident : static_cast<unsigned>(pass)};
  }
  return {1, 1};
}

template <class T, class OpT>
void run(const char* name, OpT op, const std::vector<int>& log_sizes, int samples, int4* flush, std::size_t flush_n,
         int* sink, cudaStream_t stream, double peak) {
  using base = reducelab::tuning::sm90<reducelab::tuning::size_class(sizeof(T))>;
  using P_res = resident_only<base>;
  using P_pass = with_pass_blocks<base, 0>;
  using P_pass8 = with_pass_blocks<base, 8>;
  using P_pass16 = with_pass_blocks<base, 16>;
  const auto dev = reducelab::detail::current_device_properties();
  const std::size_t max_n = std::size_t{1} << *std::max_element(log_sizes.begin(), log_sizes.end());
  const std::vector<T> host = values_for<T>(max_n);
  T *in, *out;
  CHECK_CUDA(cudaMalloc(&in, max_n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&out, rows * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(in, host.data(), max_n * sizeof(T), cudaMemcpyHostToDevice));
  const std::size_t ws_bytes = std::max(reducelab::detail::workspace_bytes_for<P_res, OpT, T>(max_n, dev),
                                        reducelab::detail::workspace_bytes_for<P_pass, OpT, T>(max_n, dev));
  // (the 8- and 16-load rows need fewer slots than the policy's)
  void* ws;
  CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  CHECK_CUDA(cudaMemset(ws, 0, ws_bytes));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int lg : log_sizes) {
    const std::size_t n = std::size_t{1} << lg;
    std::vector<float> t[rows];
    T got[2][rows];
    int order[rows] = {0, 1, 2, 3};
    for (int k = 0; k <= samples; ++k) {
      std::rotate(order, order + 1, order + rows);  // a new order each round
      if (k % 2) std::reverse(order, order + rows);
      for (int row : order) {
        CHECK_CUDA(cudaMemsetAsync(flush, k, flush_n * 16, stream));
        touch<<<528, 512, 0, stream>>>(flush, flush_n, sink);
        CHECK_CUDA(cudaEventRecord(start, stream));
        const T* src = in;
        if (row == 0) reducelab::detail::launch<P_res>(src, n, out, ws, op, stream, dev);
        if (row == 1) reducelab::detail::launch<P_pass>(src, n, out + 1, ws, op, stream, dev);
        if (row == 2) reducelab::detail::launch<P_pass8>(src, n, out + 2, ws, op, stream, dev);
        if (row == 3) reducelab::detail::launch<P_pass16>(src, n, out + 3, ws, op, stream, dev);
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (k > 0) t[row].push_back(ms * 1000);
        if (k < 2) CHECK_CUDA(cudaMemcpy(&got[k][row], out + row, sizeof(T), cudaMemcpyDeviceToHost));
      }
    }
    // Checks: each grid against the host, and each grid's two calls bitwise against each other.
    const std::string check = check_results<T>(host, n, op, got);
    const auto [resident_grid, pass_grid] = grid_pair<P_res, P_pass, OpT, T>(in, n, dev);
    double med[rows];
    std::string line;
    for (int row = 0; row < rows; ++row) {
      std::sort(t[row].begin(), t[row].end());
      med[row] = t[row][t[row].size() / 2];
      char buf[160];
      std::snprintf(buf, sizeof buf, " | %s %8.2f us [%8.2f %8.2f] %5.1f %%", row_names[row], med[row],
                    t[row][t[row].size() / 10], t[row][t[row].size() * 9 / 10],
                    100.0 * n * sizeof(T) / (med[row] * 1e-6) / 1e9 / peak);
      line += buf;
    }
    std::printf("%-16s n=2^%d grids %u/%u%s | resident/pass %.3f %.3f %.3f | %s\n", name, lg, resident_grid, pass_grid,
                line.c_str(), med[0] / med[1], med[0] / med[2], med[0] / med[3], check.c_str());
  }
  CHECK_CUDA(cudaFree(in));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(ws));
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 15;
  std::vector<int> log_sizes = {20, 22, 24, 25, 26, 27, 28};
  if (argc > 2) {
    log_sizes.clear();
    for (std::string s = argv[2]; !s.empty();) {
      const auto comma = s.find(',');
      log_sizes.push_back(std::stoi(s.substr(0, comma)));
      s = comma == std::string::npos ? "" : s.substr(comma + 1);
    }
  }
  const std::string only = argc > 3 ? argv[3] : "";
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double peak = harness_common::peak_gb_per_s();
  std::printf("device %s peak %.0f GB/s\n", prop.name, peak);
  int4* flush;
  int* sink;
  const std::size_t flush_n = (std::size_t{256} << 20) / 16;
  CHECK_CUDA(cudaMalloc(&flush, flush_n * 16));
  CHECK_CUDA(cudaMalloc(&sink, 4));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto want = [&](const char* name) { return only.empty() || only.find(name) != std::string::npos; };
  if (want("plus/int32")) run<std::int32_t>("plus/int32", fn::plus{}, log_sizes, samples, flush, flush_n, sink, stream, peak);
  if (want("plus/double")) run<double>("plus/double", fn::plus{}, log_sizes, samples, flush, flush_n, sink, stream, peak);
  if (want("maximum/float")) run<float>("maximum/float", fn::maximum{}, log_sizes, samples, flush, flush_n, sink, stream, peak);
  if (want("argmax/float_idx32"))
    run<fn::float_idx32>("argmax/float_idx32", fn::argmax{}, log_sizes, samples, flush, flush_n, sink, stream, peak);
  if (want("affine_compose/affine32"))
    run<fn::affine32>("affine_compose/affine32", fn::affine_compose{}, log_sizes, samples, flush, flush_n, sink, stream,
                      peak);
  if (want("logical_or/uint8"))
    run<std::uint8_t>("logical_or/uint8", fn::logical_or{}, log_sizes, samples, flush, flush_n, sink, stream, peak);
  if (want("argmax/double_idx64"))
    run<fn::double_idx64>("argmax/double_idx64", fn::argmax{}, log_sizes, samples, flush, flush_n, sink, stream, peak);
  return 0;
}
