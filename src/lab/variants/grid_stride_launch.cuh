// Host side shared by the variants whose kernel walks the input with a grid-stride loop over a grid sized to
// the device and leaves one partial per block. With one block the kernel writes the result directly;
// otherwise a second launch of the same kernel, one block, reduces the partials (steps 8, 9, 11 and 19 derive
// from grid_stride_two_launch_step; the grid rule serves the other grid-stride variants too).
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/variants/variant.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace reducelab::variants {

/// A grid that fills the device (PolicyT::blocks_per_sm blocks on every SM) or, for a small input, one block
/// per PolicyT::block_threads units of work (elements, or vectors for a vectorized kernel); at least one.
template <class PolicyT>
std::size_t device_sized_grid(std::size_t work_units) {
  const std::size_t full = static_cast<std::size_t>(current_device().sm_count) * PolicyT::blocks_per_sm;
  return std::max<std::size_t>(1, std::min(full, ceil_div<std::size_t>(work_units, PolicyT::block_threads)));
}

/// The variant interface (variants/variant.hpp) for a kernel
///   template <int BlockThreads, class OpT, class T>
///   __global__ void kernel(const T* in, size_t count, T* block_results, OpT op);
/// StepT supplies name, summary, traits, policy {block_threads, blocks_per_sm}, combine_depth and
///   template <class OpT, class T> static constexpr auto kernel() { return &kernels::NAME<threads, OpT, T>; }
/// and may declare its own grid_size (many_per_thread loads two values per thread before its loop).
template <class StepT>
struct grid_stride_two_launch_step {
  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    return device_sized_grid<typename StepT::policy>(n);
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    const std::size_t grid = StepT::template grid_size<OpT, T>(n);
    return grid > 1 ? grid * sizeof(T) : 0;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = StepT::policy::block_threads;
    const auto kernel = StepT::template kernel<OpT, T>();
    const std::size_t grid = StepT::template grid_size<OpT, T>(n);
    if (grid == 1) {
      kernel<<<1, threads, 0, stream>>>(in, n, out, op);
      CUDA_TRY_LAUNCH();
      return;
    }
    T* partials = static_cast<T*>(workspace);
    kernel<<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, partials, op);
    CUDA_TRY_LAUNCH();
    kernel<<<1, threads, 0, stream>>>(partials, grid, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
