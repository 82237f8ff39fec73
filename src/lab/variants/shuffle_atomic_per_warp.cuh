// Variant, ladder step 10: shuffle reduction finished with one atomic per warp.
// Fixes over step 9: the second launch over block partials is gone (the workspace is one 8-byte slot): each warp folds its
// result straight into *out with atomic_combine (native atomics where the hardware has them, compare-and-swap
// otherwise), so one launch (after a one-thread launch that stores the identity) does the whole reduction and
// no block needs a barrier. The cost is contention: sm_count * blocks_per_sm * warps_per_block atomics on one
// address, serialized in the L2; shuffle_atomic_per_block cuts that by the warps per block.
// Cannot serve: non-commutative functors (grid-stride loop, atomics landing in any order); values wider than
// 8 bytes (the widest compare-and-swap is 64 bits). Not deterministic: floating-point sums depend on the order
// in which the atomics land.
#pragma once

#include "lab/atomic/atomic_combine.cuh"
#include "reducelab/core/error.hpp"
#include "lab/kernels/shuffle_atomic.cuh"
#include "lab/variants/grid_stride_launch.cuh"
#include "lab/variants/variant.hpp"

#include <cstdint>

namespace reducelab::variants {

namespace detail {
/// The host side both step-10 variants share: the identity stored into an aligned workspace slot, one
/// grid-stride launch of StepT::kernel<OpT, T>() whose warps (or blocks) combine into the slot atomically,
/// and a copy of the slot to *out. StepT supplies name, summary, traits, policy {block_threads,
/// blocks_per_sm} and kernel().
template <class StepT>
struct shuffle_atomic_step {
  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    return device_sized_grid<typename StepT::policy>(n);
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t) {
    return sizeof(atomic_slot<T>);
  }

  // Atomics chain every partial through the one output in an unknown order: bound by n.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    return n;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    using policy = typename StepT::policy;
    constexpr int threads = policy::block_threads;
    // The atomics go to an 8-byte-aligned slot in the workspace, not to *out: a compare-and-swap for a 1- or
    // 2-byte value covers its whole 32-bit word, which must lie inside an allocation (and *out may not be
    // aligned at all). One small copy at the end moves the result out.
    auto* slot_storage = static_cast<atomic_slot<T>*>(workspace);
    T* slot = &slot_storage->value;
    kernels::shuffle_atomic_init<OpT><<<1, 1, 0, stream>>>(slot_storage);
    CUDA_TRY_LAUNCH();
    const std::size_t grid = grid_size<OpT, T>(n);
    const auto kernel = StepT::template kernel<OpT, T>();
    kernel<<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, slot, op);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemcpyAsync(out, slot, sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};
}  // namespace detail

struct shuffle_atomic_per_warp : detail::shuffle_atomic_step<shuffle_atomic_per_warp> {
  static constexpr const char* name = "shuffle_atomic_per_warp";
  static constexpr const char* summary =
      "grid-stride loop, shuffle tree per warp, lane 0 of each warp combines into the output atomically";
  static constexpr variant_traits traits = {/*ladder_step*/ 10, /*needs_commutative*/ true, /*max_value_bytes*/ 8,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ false, /*deterministic*/ false};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM, loads in flight
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::shuffle_atomic_per_warp<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
