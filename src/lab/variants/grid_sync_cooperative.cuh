// Variant, ladder step 16: one cooperative launch with a grid-wide barrier.
// Fixes over step 15: no ticket counter to clear before each launch, no __threadfence/atomic protocol to get
// right: blocks store partials, cooperative_groups::this_grid().sync() waits for all of them, block 0 combines
// them in block order. The grid is sized by occupancy (cudaOccupancyMaxActiveBlocksPerMultiprocessor *
// sm_count) because a grid barrier needs every block resident at once; cudaLaunchCooperativeKernel checks it.
// Each block owns a contiguous range, so the result keeps the input order; deterministic.
// Cannot serve: devices without cooperative launch support (refused at run time with usage_error); it also
// cannot share the GPU politely: the launch waits until the whole grid fits.
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/kernels/block_ranges.cuh"
#include "lab/kernels/grid_sync_cooperative.cuh"
#include "lab/variants/variant.hpp"

#include <string>

namespace reducelab::variants {

struct grid_sync_cooperative {
  static constexpr const char* name = "grid_sync_cooperative";
  static constexpr const char* summary =
      "one cooperative launch sized by occupancy: block partials, grid.sync(), block 0 combines them in order";
  static constexpr variant_traits traits = {/*ladder_step*/ 16, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ true, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;  // blocks per SM: whatever occupancy allows (up to 8 on Hopper)
  };

  template <class OpT>
  static constexpr block::range_algorithm algorithm = block::default_range_algorithm<OpT>;

  template <class OpT, class T>
  static constexpr auto kernel = &kernels::grid_sync_cooperative<policy::block_threads, algorithm<OpT>, OpT, T>;

  /// Contiguous ranges for at most as many blocks as can be resident at once.
  template <class OpT, class T>
  static kernels::range_split split(std::size_t n) {
    int per_sm = 0;
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel<OpT, T>, policy::block_threads, 0));
    REDUCELAB_EXPECTS(per_sm > 0, std::string(name) + ": the kernel cannot be resident on this device");
    const std::size_t max_grid = static_cast<std::size_t>(per_sm) * current_device().sm_count;
    return kernels::split_into_ranges(n, max_grid,
                                      kernels::range_granule<policy::block_threads, algorithm<OpT>, T>());
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    return split<OpT, T>(n).grid * sizeof(T);
  }

  // The block pass over one range, then block 0's pass over the partials.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    const kernels::range_split s = split<OpT, T>(n);
    return block::range_depth<policy::block_threads, algorithm<OpT>, T>(s.chunk) +
           block::range_depth<policy::block_threads, algorithm<OpT>, T>(s.grid);
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    const device_info& device = current_device();
    if (!device.cooperative_launch) {
      throw usage_error(std::string(name) + ": device " + std::to_string(device.ordinal) + " (" + device.name +
                        ") does not support cooperative launch (cudaDevAttrCooperativeLaunch = 0)");
    }
    const kernels::range_split s = split<OpT, T>(n);
    T* partials = static_cast<T*>(workspace);
    std::size_t chunk = s.chunk;
    void* args[] = {&in, &n, &chunk, &partials, &out, &op};
    CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel<OpT, T>),
                                         dim3(static_cast<unsigned>(s.grid)), dim3(policy::block_threads), args, 0,
                                         stream));
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
