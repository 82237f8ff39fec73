// The one-block path of reducelab::reduce: n small enough for one block (the policy's single_block_max_bytes), no
// workspace, nothing published. A kernel of its own rather than single_pass with one block: the general kernel
// carries the scalar path and the grid's code, and at 2^12 values that cost it 0.3 µs (same-run harness
// scripts/harness/one_block_kernels.cu, H100, plus/int32: the same tile algorithm took 4.58 µs inside single_pass
// and 4.26 µs alone; CUB's one-tile kernel 4.10).
//
// A commutative functor over values that tile a 16-byte vector exactly (1, 2, 4, 8, 16 bytes) is folded directly:
// each thread folds its own vectors (agent/block_vectors.cuh), which the same harness timed at 4.10 µs; the head
// and the tail (fewer than one vector's worth of values each) are folded by the first threads (block_vectors_partial,
// which single_pass's blocks run too, each on its passes). A non-commutative functor over such values folds one
// contiguous run of vectors per thread (agent::fold_thread_run) and the block combines its threads in order through
// shared memory (block::reduce_in_order_through_slots): no transpose of each warp tile and no shuffle tree per tile.
// Other value types (12, 24 bytes) read the warp tiles in input order (single_pass.cuh, block_tiles_partial), as one
// block of single_pass does. Every way the combine order is fixed, so the result is the same bits every run.
//
// Scalar plans (values that never meet a 16-byte boundary, or too large to stage) still run single_pass.
#pragma once

#include "reducelab/agent/block_vectors.cuh"
#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/kernels/single_pass.cuh"
#include "reducelab/warp/warp_reduce_hardware.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// `running` combined with p[0], ..., p[count - 1] in order, count <= MaxCount (a head or a tail, fewer values than
/// a vector holds): every load is issued before the first combine (a load past count reads p[count - 1] again), so
/// the values cost one memory round trip rather than one each.
template <std::size_t MaxCount, class T, class OpT>
__device__ __forceinline__ T fold_short_run(T running, const T* p, std::size_t count, OpT op) {
  if constexpr (MaxCount == 0) {
    return running;
  } else {
    if (count == 0) return running;
    T x[MaxCount];
#pragma unroll
    for (std::size_t i = 0; i < MaxCount; ++i) x[i] = p[i < count ? i : count - 1];
#pragma unroll
    for (std::size_t i = 0; i < MaxCount; ++i)
      if (i < count) running = op(running, x[i]);
    return running;
  }
}

/// One block reduces [in, in + plan.n) into *out. `plan` is a vector plan for one block (detail/dispatch.cuh,
/// make_plan with a cap of 1): plan.scalar is false.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    one_block(const T* __restrict__ in, single_pass_plan plan, T* out, OpT op) {
  static_assert(agent::vectorizable<T>, "values read one by one take single_pass (detail/dispatch.cuh)");
  using storage_t = single_pass_storage<BlockThreads, VectorsPerThread, T>;
  // Each path declares only what it uses: the direct fold and the thread runs a slot per thread (or per warp where a
  // warp reduces in one instruction), the tiles their stage. Declaring the stage for all gave the 4-byte one-block
  // kernel 36 KiB of static shared memory it never touched.
  using ordered_t = block::ordered_slot_storage<T, BlockThreads>;
  constexpr std::size_t raw_bytes = folds_directly<OpT, T>    ? sizeof(block::commutative_storage<T, BlockThreads, OpT>)
                                    : folds_thread_runs<OpT, T> ? sizeof(ordered_t)
                                                                : storage_t::bytes;
  __shared__ alignas(16) unsigned char raw[raw_bytes];
  T partial = identity_of<OpT, T>();
  if constexpr (folds_directly<OpT, T>) {
    auto& reduce = *reinterpret_cast<block::commutative_storage<T, BlockThreads, OpT>*>(raw);
    partial = block_vectors_partial<BlockThreads, VectorsPerThread>(in, plan, 0, 1, true, true, op, reduce);
  } else if constexpr (folds_thread_runs<OpT, T>) {
    // Thread t folds the t-th run of ceil(vectors / BlockThreads) vectors; thread 0 puts the head in front and the
    // last thread appends the tail (threads past the body hold the identity, so the order stays the input's).
    constexpr std::size_t per_vector = agent::values_per_vector<T>;
    const std::size_t vectors = (plan.n - plan.head) / per_vector;
    const std::size_t body_end = plan.head + vectors * per_vector;
    const std::size_t run = (vectors + BlockThreads - 1) / BlockThreads;
    const std::size_t begin = run * threadIdx.x < vectors ? run * threadIdx.x : vectors;
    const std::size_t end = vectors - begin > run ? begin + run : vectors;
    T mine = identity_of<OpT, T>();
    if (threadIdx.x == 0) mine = fold_short_run<per_vector - 1>(mine, in, plan.head, op);
    mine = agent::fold_thread_run<VectorsPerThread>(reinterpret_cast<const uint4*>(in + plan.head), begin, end, mine,
                                                    op);
    if (threadIdx.x == BlockThreads - 1)
      mine = fold_short_run<per_vector - 1>(mine, in + body_end, plan.n - body_end, op);
    partial = block::reduce_in_order_through_slots<BlockThreads>(mine, op, *reinterpret_cast<ordered_t*>(raw));
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
