// The one-block path of reducelab::reduce: n small enough for one block (the policy's single_block_max_bytes), no
// workspace, nothing published. A kernel of its own rather than single_pass with one block: the general kernel
// carries the scalar path and the grid's code, and at 2^12 values that cost it 0.3 µs (same-run harness
// scripts/harness/one_block_kernels.cu, H100, plus/int32: the same tile algorithm took 4.58 µs inside single_pass
// and 4.26 µs alone; CUB's one-tile kernel 4.10).
//
// A commutative functor over values that tile a 16-byte vector exactly (1, 2, 4, 8, 16 bytes) is folded directly:
// each thread folds its own vectors (agent/block_vectors.cuh), which the same harness timed at 4.10 µs; the head
// and the tail (fewer than one vector's worth of values each) are folded by the first threads. Any other functor
// or value type reads the warp tiles in input order (single_pass.cuh, block_tiles_partial), as one block of
// single_pass does. Either way the combine order is fixed, so the result is the same bits every run.
//
// Scalar plans (values that never meet a 16-byte boundary, or too large to stage) still run single_pass.
#pragma once

#include "reducelab/agent/block_vectors.cuh"
#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/kernels/single_pass.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// Whether the one-block kernel folds each thread's vectors directly (see the file comment).
template <class OpT, class T>
inline constexpr bool one_block_folds_directly = is_commutative_v<OpT> && agent::vector_holds_whole_values<T>;

/// One block reduces [in, in + plan.n) into *out. `plan` is a vector plan for one block (detail/dispatch.cuh,
/// make_plan with a cap of 1): plan.scalar is false.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    one_block(const T* __restrict__ in, single_pass_plan plan, T* out, OpT op) {
  static_assert(agent::vectorizable<T>, "values read one by one take single_pass (detail/dispatch.cuh)");
  using storage_t = single_pass_storage<BlockThreads, VectorsPerThread, T>;
  // The direct fold needs only the warps' partials; the in-order path stages its tiles. Declaring the stage for both
  // gave the 4-byte one-block kernel 36 KiB of static shared memory it never touched.
  constexpr std::size_t raw_bytes =
      one_block_folds_directly<OpT, T> ? sizeof(block::reduce_storage<T, BlockThreads>) : storage_t::bytes;
  __shared__ alignas(16) unsigned char raw[raw_bytes];
  T partial = identity_of<OpT, T>();
  if constexpr (one_block_folds_directly<OpT, T>) {
    constexpr std::size_t per_vector = agent::values_per_vector<T>;
    static_assert(per_vector <= BlockThreads, "the first threads take the head and the tail");
    const std::size_t vectors = (plan.n - plan.head) / per_vector;
    const std::size_t body_end = plan.head + vectors * per_vector;
    // Thread t takes head value t and tail value t (each fewer than per_vector): issued first, used last.
    T edge = identity_of<OpT, T>();
    if (threadIdx.x < plan.head) edge = in[threadIdx.x];
    if (threadIdx.x < plan.n - body_end) edge = op(edge, in[body_end + threadIdx.x]);
    T mine = agent::fold_block_vectors<BlockThreads, VectorsPerThread>(
        reinterpret_cast<const uint4*>(in + plan.head), vectors, identity_of<OpT, T>(), op);
    mine = warp::reduce_in_lane_order(op(mine, edge), op);
    auto& reduce = *reinterpret_cast<block::reduce_storage<T, BlockThreads>*>(raw);
    partial = block::combine_warp_leaders<BlockThreads>(mine, op, reduce);
  } else {
    constexpr int warps = storage_t::warps;
    const std::size_t warp_id = threadIdx.x / 32;
    const std::size_t per_warp = (plan.tiles + warps - 1) / warps;
    const std::size_t first = per_warp * warp_id < plan.tiles ? per_warp * warp_id : plan.tiles;
    const std::size_t last = first + per_warp < plan.tiles ? first + per_warp : plan.tiles;
    partial = block_tiles_partial<BlockThreads, VectorsPerThread>(in, plan, first, last, 1, true, true, op, raw);
  }
  if (threadIdx.x == 0) write_result(out, partial, plan);
}

}  // namespace reducelab::kernels
