// Host side of reducelab::reduce below the public entry: the launch plan (one block or many, vectors or
// values), the workspace layout, the grid from the policy and the occupancy calculator, and the launch.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/kernels/one_block.cuh"
#include "reducelab/kernels/single_pass.cuh"
#include "reducelab/tuning/select.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <random>

namespace reducelab::detail {

/// The largest n reduce accepts for T: n * sizeof(T) bytes must fit the address space (a negative count
/// converted to size_t lands above this).
template <class T>
inline constexpr std::size_t max_items = static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T);

/// A fresh epoch per launch (grid/tagged_partials.cuh): a process-wide counter from a random start.
inline unsigned long long next_epoch() {
  static std::atomic<unsigned long long> counter{[] {
    std::random_device rd;
    return (static_cast<unsigned long long>(rd()) << 32) ^ rd();
  }()};
  const unsigned long long e = counter.fetch_add(1, std::memory_order_relaxed) + 1;
  return e != 0 ? e : 1;  // 0 is what a cleared workspace holds (graph replays, reduce.cuh)
}

/// Values before the first 16-byte boundary, or -1 when no value of `in` starts on one.
template <class T>
long long vector_head(const T* in) {
  const auto address = reinterpret_cast<std::uintptr_t>(in);
  for (std::size_t h = 0; h < agent::vector_bytes; ++h)
    if ((address + h * sizeof(T)) % agent::vector_bytes == 0) return static_cast<long long>(h);
  return -1;
}

/// Workspace layout: one tagged partial per block (grid/tagged_partials.cuh); none for one block.
template <class T>
constexpr std::size_t layout_bytes(std::size_t blocks) {
  return blocks <= 1 ? 0 : blocks * sizeof(::reducelab::grid::tagged_partial<T>);
}

template <class PolicyT, class OpT, class T>
constexpr auto multi_block_kernel() {
  return &kernels::single_pass<PolicyT::block_threads, PolicyT::vectors_per_thread, OpT, T>;
}
/// The multi-block kernel for a grid of `grid` blocks: kernels::single_pass_few_blocks up to kernels::few_blocks_max
/// blocks where the functor has one (kernels::has_few_blocks_kernel), multi_block_kernel otherwise.
template <class PolicyT, class OpT, class T>
auto multi_block_kernel_for(unsigned grid) {
  if constexpr (kernels::has_few_blocks_kernel<OpT, T>) {
    if (grid <= kernels::few_blocks_max)
      return &kernels::single_pass_few_blocks<PolicyT::block_threads, PolicyT::vectors_per_thread, OpT, T>;
  }
  return multi_block_kernel<PolicyT, OpT, T>();
}
/// The one-block path: kernels/one_block.cuh for vector plans, single_pass with one block for scalar ones.
template <class PolicyT, class OpT, class T>
constexpr auto single_block_kernel() {
  return &kernels::one_block<PolicyT::single_block_threads, PolicyT::single_block_vectors, OpT, T>;
}
template <class PolicyT, class OpT, class T>
constexpr auto single_block_scalar_kernel() {
  return &kernels::single_pass<PolicyT::single_block_threads, PolicyT::single_block_vectors, OpT, T>;
}

/// The most blocks one launch of the multi-block kernel uses on this device: the policy's cap (the direct fold's own
/// where the policy sets one), or (0) what the occupancy calculator allows, read once per device.
template <class PolicyT, class OpT, class T>
std::size_t grid_cap(const device_properties& dev) {
  int per_sm = PolicyT::blocks_per_sm;
  if constexpr (kernels::folds_directly<OpT, T>) {
    if (PolicyT::direct_fold_blocks_per_sm != 0) per_sm = PolicyT::direct_fold_blocks_per_sm;
  }
  if (per_sm == 0) {
    static std::array<std::atomic<int>, max_devices> cached{};
    per_sm = cached[dev.ordinal].load(std::memory_order_relaxed);
    if (per_sm == 0) {
      CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, multi_block_kernel<PolicyT, OpT, T>(),
                                                             PolicyT::block_threads, 0));
      if (per_sm < 1) per_sm = 1;
      cached[dev.ordinal].store(per_sm, std::memory_order_relaxed);
    }
  }
  return static_cast<std::size_t>(per_sm) * static_cast<std::size_t>(dev.sm_count);
}

template <class PolicyT, class T>
bool takes_single_block(std::size_t n) {
  return n * sizeof(T) <= PolicyT::single_block_max_bytes;
}

/// Bytes of workspace a launch of n values needs under PolicyT (0 on the one-block path). Sized for the
/// largest grid, so it does not depend on the input pointer.
/// Whether inputs of (OpT, T) can take a grid of a pass per block (kernels/single_pass.cuh): the direct fold, and
/// a non-commutative functor's warp tiles (a short contiguous run of tiles per block, folded in block order).
template <class OpT, class T>
inline constexpr bool has_pass_blocks = kernels::folds_directly<OpT, T> || kernels::has_few_blocks_kernel<OpT, T>;

/// What one pass block reads: 16-byte vectors (direct fold: block_threads x pass_blocks_vectors) or warp tiles (each
/// warp pass_blocks_vectors / vectors_per_thread tiles of its own, at least one).
template <class PolicyT, class OpT, class T>
constexpr std::size_t pass_block_units() {
  if constexpr (kernels::folds_directly<OpT, T>) {
    return static_cast<std::size_t>(PolicyT::block_threads) * PolicyT::pass_blocks_vectors;
  } else {
    constexpr int per_warp = PolicyT::pass_blocks_vectors / PolicyT::vectors_per_thread;
    return static_cast<std::size_t>(PolicyT::block_threads / 32) * (per_warp > 1 ? per_warp : 1);
  }
}

/// The size from which (OpT, T) takes pass blocks under PolicyT: the direct fold's, or the warp tiles' own (0: never).
template <class PolicyT, class OpT, class T>
constexpr std::size_t pass_blocks_min_bytes_for() {
  return kernels::folds_directly<OpT, T> ? PolicyT::pass_blocks_min_bytes : PolicyT::in_order_pass_blocks_min_bytes;
}

/// Blocks of a grid of a pass per block over `units` vectors (direct fold) or warp tiles (pass_block_units), or 0
/// where that grid is not taken: not has_pass_blocks, below the policy's pass_blocks_min_bytes, fewer than two
/// passes, or more blocks than a grid holds.
template <class PolicyT, class OpT, class T>
std::size_t pass_blocks_for(std::size_t n, std::size_t units) {
  if constexpr (!has_pass_blocks<OpT, T>) {
    return 0;
  } else {
    constexpr std::size_t min_bytes = pass_blocks_min_bytes_for<PolicyT, OpT, T>();
    if (min_bytes == 0 || n * sizeof(T) < min_bytes) return 0;
    constexpr std::size_t pass = pass_block_units<PolicyT, OpT, T>();
    const std::size_t blocks = (units + pass - 1) / pass;
    return blocks < 2 || blocks > 0x7fffffffu ? 0 : blocks;
  }
}

/// Slots of a grid of a pass per block: one per block, then one per group of block_threads blocks.
template <class PolicyT>
constexpr std::size_t pass_blocks_slots(std::size_t blocks) {
  return blocks + (blocks + PolicyT::block_threads - 1) / PolicyT::block_threads;
}

template <class PolicyT, class OpT, class T>
std::size_t workspace_bytes_for(std::size_t n, const device_properties& dev) {
  if (takes_single_block<PolicyT, T>(n)) return 0;
  const std::size_t resident = layout_bytes<T>(grid_cap<PolicyT, OpT, T>(dev));
  // The most vectors or tiles any start address leaves (the head only takes values away).
  std::size_t most_units = 0;
  if constexpr (kernels::folds_directly<OpT, T>) {
    most_units = n / agent::values_per_vector<T>;
  } else if constexpr (has_pass_blocks<OpT, T>) {
    most_units = n / agent::tile_items<T, PolicyT::vectors_per_thread>;
  }
  const std::size_t blocks = pass_blocks_for<PolicyT, OpT, T>(n, most_units);
  const std::size_t per_pass = blocks == 0 ? 0 : layout_bytes<T>(pass_blocks_slots<PolicyT>(blocks));
  return resident > per_pass ? resident : per_pass;
}

/// Blocks wanted for `tiles` warp tiles: at least one tile per warp before another block is worth its launch, at
/// least one block, no more than the cap.
inline std::size_t blocks_wanted(std::size_t tiles, std::size_t warps, std::size_t cap) {
  const std::size_t g = (tiles + warps - 1) / warps;
  return g < 1 ? 1 : g > cap ? cap : g;
}

/// Blocks for `tiles` warp tiles: blocks_wanted, lowered to as few as give every block the same whole number of
/// tiles (the last block fewer). Never below half of blocks_wanted.
inline std::size_t plan_grid(std::size_t tiles, std::size_t warps, std::size_t cap) {
  const std::size_t g = blocks_wanted(tiles, warps, cap);
  const std::size_t per_block = (tiles + g - 1) / g;
  return per_block == 0 ? 1 : (tiles + per_block - 1) / per_block;
}

/// Split n values over at most `cap` blocks of BlockThreads threads.
template <int BlockThreads, int VectorsPerThread, class T>
kernels::single_pass_plan make_plan(const T* in, std::size_t n, std::size_t cap, unsigned& grid) {
  constexpr std::size_t warps = BlockThreads / 32;
  kernels::single_pass_plan p;
  p.n = n;
  const long long head = vector_head(in);
  if (!agent::vectorizable<T> || head < 0) {
    // Value by value: at least 16 values per thread per block before another block is worth its launch.
    p.scalar = true;
    const std::size_t per_block_min = static_cast<std::size_t>(BlockThreads) * 16;
    std::size_t g = (n + per_block_min - 1) / per_block_min;
    g = g < 1 ? 1 : g > cap ? cap : g;
    p.items_per_block = (n + g - 1) / g;
    grid = static_cast<unsigned>(p.items_per_block == 0 ? 1 : (n + p.items_per_block - 1) / p.items_per_block);
    if (grid == 0) grid = 1;
    return p;
  }
  constexpr std::size_t tile = agent::tile_items<T, VectorsPerThread>;
  p.head = static_cast<std::size_t>(head) < n ? static_cast<std::size_t>(head) : n;
  p.tiles = (n - p.head) / tile;
  grid = static_cast<unsigned>(plan_grid(p.tiles, warps, cap));
  p.tiles_per_block = (p.tiles + grid - 1) / grid;
  return p;
}

/// The plan and grid of a multi-block launch of n values under PolicyT: make_plan under the grid cap; a block per
/// pass where the policy takes them (plan.group_blocks); otherwise, with two or more reading blocks and room below the
/// cap, one more block that only finishes (plan.finishing_block; kernels/single_pass.cuh says why). A full grid keeps
/// its last reader finishing: planned for one block fewer, plan_grid's equal runs of tiles could cost far more than
/// one block (2112 tiles over 527 blocks are 423 blocks of 5), and a finisher past the cap would start only as the
/// first reader leaves.
template <class PolicyT, class OpT, class T>
kernels::single_pass_plan multi_block_plan(const T* in, std::size_t n, const device_properties& dev, unsigned& grid) {
  constexpr int threads = PolicyT::block_threads;
  const std::size_t cap = grid_cap<PolicyT, OpT, T>(dev);
  kernels::single_pass_plan plan = make_plan<threads, PolicyT::vectors_per_thread>(in, n, cap, grid);
  if (plan.scalar) return plan;
  if constexpr (has_pass_blocks<OpT, T>) {
    std::size_t units = plan.tiles;
    if constexpr (kernels::folds_directly<OpT, T>) units = (n - plan.head) / agent::values_per_vector<T>;
    const std::size_t blocks = pass_blocks_for<PolicyT, OpT, T>(n, units);
    if (blocks != 0) {
      grid = static_cast<unsigned>(blocks);
      plan.group_blocks = static_cast<unsigned>(threads);
      if constexpr (!kernels::folds_directly<OpT, T>) plan.tiles_per_block = pass_block_units<PolicyT, OpT, T>();
      return plan;
    }
  }
  if (grid < 2 || grid >= cap) return plan;
  plan.finishing_block = true;
  ++grid;
  return plan;
}

/// A host-result launch's flag: the kernel stores `seq` into `flag` (pinned host memory) once *out is written
/// (kernels/single_pass.cuh, write_result). A null flag: none, the device-result calls.
struct result_signal {
  unsigned* flag = nullptr;
  unsigned seq = 0;
};

/// Launch the reduction of [in, in + n) into *out under PolicyT. The caller has validated the arguments;
/// `workspace` holds at least workspace_bytes_for<PolicyT, OpT, T>(n) bytes (none on the one-block path).
template <class PolicyT, class OpT, class T>
void launch(const T* in, std::size_t n, T* out, void* workspace, OpT op, cudaStream_t stream,
            const device_properties& dev, result_signal signal = {}) {
  unsigned grid = 1;
  if (takes_single_block<PolicyT, T>(n)) {
    constexpr int threads = PolicyT::single_block_threads;
    kernels::single_pass_plan plan = make_plan<threads, PolicyT::single_block_vectors>(in, n, 1, grid);
    plan.done_flag = signal.flag;
    plan.done_seq = signal.seq;
    if constexpr (agent::vectorizable<T>) {
      if (!plan.scalar) {
        single_block_kernel<PolicyT, OpT, T>()<<<1, threads, 0, stream>>>(in, plan, out, op);
        CUDA_TRY_LAUNCH();
        return;
      }
    }
    single_block_scalar_kernel<PolicyT, OpT, T>()<<<1, threads, 0, stream>>>(in, plan, out, nullptr, 0, op);
    CUDA_TRY_LAUNCH();
    return;
  }
  constexpr int threads = PolicyT::block_threads;
  kernels::single_pass_plan plan = multi_block_plan<PolicyT, OpT, T>(in, n, dev, grid);
  plan.done_flag = signal.flag;
  plan.done_seq = signal.seq;
  auto* partials = static_cast<::reducelab::grid::tagged_partial<T>*>(workspace);
  if constexpr (has_pass_blocks<OpT, T> && pass_blocks_min_bytes_for<PolicyT, OpT, T>() != 0) {
    if (plan.group_blocks != 0) {
      // The direct fold's pass blocks have a kernel of their own shape; the warp tiles keep the policy's (a pass is
      // a run of tiles, plan.tiles_per_block), and never the few-blocks kernel, whatever the grid.
      constexpr int vectors =
          kernels::folds_directly<OpT, T> ? PolicyT::pass_blocks_vectors : PolicyT::vectors_per_thread;
      kernels::single_pass_pass_blocks<threads, vectors, OpT, T><<<grid, threads, 0, stream>>>(
          in, plan, out, partials, next_epoch(), op);
      CUDA_TRY_LAUNCH();
      return;
    }
  }
  multi_block_kernel_for<PolicyT, OpT, T>(grid)<<<grid, threads, 0, stream>>>(in, plan, out, partials, next_epoch(),
                                                                              op);
  CUDA_TRY_LAUNCH();
}

}  // namespace reducelab::detail

namespace reducelab::detail {

/// The longest chain of combines any value goes through in a launch of n values under PolicyT (what a
/// floating-point error bound scales with): its lane's fold, the warp tree, the warp's run of tiles, the block
/// tree, the last block's pass over the partials, and head and tail.
template <class PolicyT, class OpT, class T>
std::size_t combine_depth_for(std::size_t n, const device_properties& dev) {
  const bool single = takes_single_block<PolicyT, T>(n);
  const int threads = single ? PolicyT::single_block_threads : PolicyT::block_threads;
  const std::size_t cap = single ? 1 : grid_cap<PolicyT, OpT, T>(dev);
  const std::size_t warps = static_cast<std::size_t>(threads) / 32;
  const std::size_t tile = single ? agent::tile_items<T, PolicyT::single_block_vectors>
                                  : agent::tile_items<T, PolicyT::vectors_per_thread>;
  const std::size_t lane_items = single ? agent::lane_items<T, PolicyT::single_block_vectors>
                                        : agent::lane_items<T, PolicyT::vectors_per_thread>;
  const std::size_t tiles = n / tile + 1;
  const std::size_t grid = cap < tiles ? cap : tiles;
  const std::size_t per_warp = (tiles / grid + 1) / warps + 1;
  // The last block's pass over the partials: a lane's run and two trees (single_pass_few_blocks: one partial a lane,
  // then fold_slots_in_order over 32 lanes, 9 combines deep, within this).
  const std::size_t partials_depth = grid / 32 + 1 + 15;
  const std::size_t tail_depth = tile / 32 + 1 + 15;
  // Scalar plans: a block's run of values split over its warps' tiles of 32 items, plus the trees.
  const std::size_t scalar_depth = n / grid / 32 + 64;
  const std::size_t vector_depth = lane_items + 5 + per_warp + 10;
  std::size_t depth = (vector_depth > scalar_depth ? vector_depth : scalar_depth) + partials_depth + tail_depth + 2;
  if constexpr (kernels::folds_directly<OpT, T>) {
    // kernels::block_vectors_partial: a thread's vectors (its block's share of the passes), its head and tail
    // values, the block combine (block::reduce_commutative_depth); then, with several blocks, the last block's pass
    // over the partials. The grid is taken at a lower bound: plan_grid gives at least half of blocks_wanted, and the
    // head (fewer than 16 values) can only lower the tile count.
    constexpr std::size_t per_vector = agent::values_per_vector<T>;
    const int vectors_per_thread = single ? PolicyT::single_block_vectors : PolicyT::vectors_per_thread;
    const std::size_t per_pass = static_cast<std::size_t>(threads) * static_cast<std::size_t>(vectors_per_thread);
    const std::size_t passes = n / per_vector / per_pass + 1;
    const std::size_t fewest_tiles = n > 16 ? (n - 16) / tile : 0;
    const std::size_t wanted = blocks_wanted(fewest_tiles, warps, cap);
    const std::size_t blocks = single || wanted < 2 ? 1 : wanted / 2;
    const std::size_t direct = (passes / blocks + 1) * static_cast<std::size_t>(vectors_per_thread) * per_vector + 2 +
                               static_cast<std::size_t>(block::reduce_commutative_depth(threads)) +
                               (single ? 0 : partials_depth) + 2;
    if (direct > depth) depth = direct;
    // A grid of a pass per block (kernels::finish_in_groups): a thread's one pass, head and tail, the block combine,
    // then the group's fold (one partial a thread, the block combine, its own partial) and the grid's last block's
    // fold over the groups (ceil(groups / threads) a thread, the block combine, the last group).
    const std::size_t pass_blocks = single ? 0 : pass_blocks_for<PolicyT, OpT, T>(n, n / per_vector);
    if (pass_blocks != 0) {
      const std::size_t block_depth = static_cast<std::size_t>(block::reduce_commutative_depth(threads));
      const std::size_t groups = (pass_blocks + threads - 1) / threads;
      const std::size_t grouped = static_cast<std::size_t>(PolicyT::pass_blocks_vectors) * per_vector + 2 + block_depth +
                                  (1 + block_depth + 1) + ((groups + threads - 1) / threads + block_depth + 1) + 2;
      if (grouped > depth) depth = grouped;
    }
  } else if constexpr (has_pass_blocks<OpT, T>) {
    // A grid of a pass per block over warp tiles: a lane's values, the warp tree, the warp's pass_block_units /
    // warps tiles, the block tree, the group's fold (one partial a thread, two trees), the grid's last block's fold
    // over the groups (ceil(groups / threads) a thread, two trees), head and tail.
    const std::size_t pass_blocks = single ? 0 : pass_blocks_for<PolicyT, OpT, T>(n, n / tile);
    if (pass_blocks != 0) {
      const std::size_t groups = (pass_blocks + threads - 1) / threads;
      const std::size_t grouped = lane_items + 5 + pass_block_units<PolicyT, OpT, T>() / warps + 10 + (1 + 15) +
                                  ((groups + threads - 1) / threads + 15) + tail_depth + 2;
      if (grouped > depth) depth = grouped;
    }
  }
  if constexpr (kernels::folds_thread_runs<OpT, T>) {
    // kernels/one_block.cuh for a non-commutative functor: thread 0's head values, a thread's run of
    // ceil(vectors / threads) vectors, the last thread's tail values, then the in-order combine through the slots.
    if (single) {
      constexpr std::size_t per_vector = agent::values_per_vector<T>;
      const std::size_t run = (n / per_vector) / static_cast<std::size_t>(threads) + 1;
      const std::size_t thread_runs = 2 * per_vector + run * per_vector +
                                      static_cast<std::size_t>(block::reduce_commutative_depth(threads));
      if (thread_runs > depth) depth = thread_runs;
    }
  }
  return depth;
}

}  // namespace reducelab::detail
