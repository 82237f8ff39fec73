// Variant, ladder step 14: the GPU produces block partials, the CPU combines them.
// Fixes over step 13: the last passes of a multi-pass reduction are launches with almost no work (a few
// hundred or thousand partials); here one device-sized pass leaves sm_count * blocks_per_sm partials, which are
// copied to the host and combined there in block order with the same functor (functors are __host__
// __device__). Each block owns a contiguous range, so the result keeps the input order for any functor.
// The price, and why it is a ladder step and not a destination: the host must wait for the GPU
// (cudaStreamSynchronize on the caller's stream), so reduce() is no longer asynchronous, and the result is
// written back with a small host-to-device copy. Nothing else (no other stream, not the device) is synchronized.
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/kernels/block_ranges.cuh"
#include "lab/variants/variant.hpp"

#include <memory>

namespace reducelab::variants {

struct cpu_finish {
  static constexpr const char* name = "cpu_finish";
  static constexpr const char* summary =
      "one device-sized pass of contiguous block ranges, partials copied to the host and combined there in order";
  static constexpr variant_traits traits = {/*ladder_step*/ 14, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true,
                                            /*synchronizes_host*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 4;  // 4 x 256: half an SM's threads, fewer partials for the CPU
  };

  template <class OpT>
  static constexpr block::range_algorithm algorithm = block::default_range_algorithm<OpT>;

  template <class OpT, class T>
  static kernels::range_split split(std::size_t n) {
    const std::size_t max_grid = static_cast<std::size_t>(current_device().sm_count) * policy::blocks_per_sm;
    return kernels::split_into_ranges(n, max_grid,
                                      kernels::range_granule<policy::block_threads, algorithm<OpT>, T>());
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    return split<OpT, T>(n).grid * sizeof(T);
  }

  // The block pass over one range, then a serial chain through the partials on the host.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    const kernels::range_split s = split<OpT, T>(n);
    return block::range_depth<policy::block_threads, algorithm<OpT>, T>(s.chunk) + s.grid;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    const kernels::range_split s = split<OpT, T>(n);
    T* partials = static_cast<T*>(workspace);
    kernels::reduce_block_ranges<threads, algorithm<OpT>>
        <<<static_cast<unsigned>(s.grid), threads, 0, stream>>>(in, n, s.chunk, partials, op);
    CUDA_TRY_LAUNCH();

    const std::unique_ptr<T[]> host(new T[s.grid]);  // not std::vector: vector<bool> has no data()
    CUDA_TRY(cudaMemcpyAsync(host.get(), partials, s.grid * sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
    T result = host[0];
    for (std::size_t b = 1; b < s.grid; ++b) result = op(result, host[b]);

    CUDA_TRY(cudaMemcpyAsync(out, &result, sizeof(T), cudaMemcpyHostToDevice, stream));
    // `result` is a local: wait until the copy has read it. (A copy from pageable memory has staged its source
    // before cudaMemcpyAsync returns anyway; this makes the lifetime explicit and independent of that rule.)
    CUDA_TRY(cudaStreamSynchronize(stream));
  }
};

}  // namespace reducelab::variants
