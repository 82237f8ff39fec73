// What the harnesses timed with the project's engine share (one_block_kernels.cu, cluster_combine.cu,
// one_block_shapes.cu): the engine on a stream of their own, and one set of rows measured interleaved and printed on
// one line.
#pragma once

#include "comparisons/timing/engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace harness_rows {

/// A non-blocking stream of the harness's own and the timing engine on it, flushing as much as the device's L2.
struct timed_stream {
  cudaStream_t stream = make_stream();
  reducelab::timing::engine engine{stream, l2_bytes()};

 private:
  static cudaStream_t make_stream() {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }
  static std::size_t l2_bytes() {
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    return static_cast<std::size_t>(l2);
  }
};

/// Measure `rows` with `eng` (cold, held stream, `rounds` interleaved rounds) and print `label`, then each row's
/// name, median µs and, in parentheses, the first row's median over it (above 1: faster than the first row).
inline void measure_and_print(reducelab::timing::engine& eng, const std::vector<reducelab::timing::timed_work>& rows,
                              int rounds, const std::string& label) {
  reducelab::timing::measurement_plan plan;
  plan.rounds = rounds;
  const auto res = eng.measure(rows, plan);
  std::printf("%s", label.c_str());
  double first = 0;
  for (std::size_t i = 0; i < res.size(); ++i) {
    auto v = res[i].us;
    std::sort(v.begin(), v.end());
    const double median = v[v.size() / 2];
    if (i == 0) first = median;
    std::printf(" %s %.2f(%.2f)", rows[i].name.c_str(), median, first / median);
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace harness_rows
