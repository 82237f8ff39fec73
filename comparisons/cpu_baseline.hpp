// The CPU baseline of `reducelab compare`: the same functor over the same data, already in host memory, on all
// the host's cores (OpenMP). Each thread folds one contiguous chunk in order and the partials are combined in
// thread order, so non-commutative functors get the in-order result too. It shows the size from which the GPU
// pays off; it is timed with the host clock, and the GPU's L2 flush does nothing to the CPU's caches.
#pragma once

#include "reducelab/core/traits.hpp"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <memory>

namespace reducelab::baselines {

struct cpu_parallel_reduce {
  static constexpr const char* name = "cpu::parallel_reduce";
  static constexpr const char* summary = "OpenMP: each thread folds a contiguous chunk, partials combined in order";

  /// All hardware threads but two: the CUDA host thread and the driver's own threads keep a core, so that no
  /// OpenMP thread is descheduled mid-region (one straggler stretches the whole region; on the 16-core GPU
  /// machine, 16 threads gave medians of 1.5-2.2 ms for 2^10 ints in some groups and 5 µs in others).
  static int threads() { return std::max(1, omp_get_num_procs() - 2); }

  /// The longest chain of combines: a chunk, then one combine per thread.
  static std::size_t combine_depth(std::size_t n) {
    const auto t = static_cast<std::size_t>(threads());
    return (n + t - 1) / t + t;
  }

  template <class OpT, class T>
  static T reduce(const T* x, std::size_t n, OpT op) {
    const int wanted = threads();
    std::unique_ptr<T[]> partial(new T[static_cast<std::size_t>(wanted)]);
    int used = 1;
#pragma omp parallel num_threads(wanted)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      const auto nt = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t begin = n * t / nt, end = n * (t + 1) / nt;
      T acc = identity_of<OpT, T>();
      for (std::size_t i = begin; i < end; ++i) acc = op(acc, x[i]);
      partial[t] = acc;
      if (t == 0) used = static_cast<int>(nt);
    }
    T result = identity_of<OpT, T>();
    for (int t = 0; t < used; ++t) result = op(result, partial[static_cast<std::size_t>(t)]);
    return result;
  }
};

}  // namespace reducelab::baselines
