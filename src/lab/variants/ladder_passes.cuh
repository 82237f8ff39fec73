// Host side shared by the optimization-ladder variants (steps 1-7). Harris's kernels give each block one tile
// of the input and leave one partial per block, so a pass shrinks n by the tile size; like the CUDA sample's
// "recursive kernel invocation", the same kernel is launched again over the partials until a pass has a single
// block, which writes the result. Partials ping-pong between two workspace buffers.
//
// Steps 1-7 differ only in their kernel (and step 1 in its depth), so each of them derives from
// tile_per_block_step<Self> below and names its kernel; the passes, workspace and depth live here once.
//
// grid.x stops at 2^31 - 1: beyond max_grid tiles, each block takes a run of consecutive tiles (see
// kernels/ladder_tiles.cuh), so a block still owns a contiguous range and partials stay in input order.
#pragma once

#include "reducelab/core/error.hpp"
#include "lab/variants/variant.hpp"

#include <cuda_runtime.h>

#include <cstddef>

namespace reducelab::variants::ladder {

/// The largest grid.x of every GPU since compute capability 3.0.
inline constexpr std::size_t max_grid_x = 2147483647;

struct pass_shape {
  std::size_t grid;             // blocks launched = partials written
  std::size_t tiles_per_block;  // consecutive tiles each block reduces: 1 unless n needs more than max_grid tiles
};

/// The launch of one pass over `count` values (count >= 1; 0 is treated as 1).
inline pass_shape shape_pass(std::size_t count, std::size_t tile_items, std::size_t max_grid) {
  const std::size_t tiles = ceil_div<std::size_t>(count > 0 ? count : 1, tile_items);
  const std::size_t per_block = ceil_div<std::size_t>(tiles, max_grid);
  return {ceil_div<std::size_t>(tiles, per_block), per_block};
}

/// Workspace values run_passes needs: the first pass's partials plus the second pass's (the third pass writes
/// over the first's, and so on); none when the first pass is already a single block.
inline std::size_t workspace_items(std::size_t n, std::size_t tile_items, std::size_t max_grid) {
  const pass_shape first = shape_pass(n, tile_items, max_grid);
  if (first.grid == 1) return 0;
  const pass_shape second = shape_pass(first.grid, tile_items, max_grid);
  return first.grid + (second.grid > 1 ? second.grid : 0);
}

/// Launch passes until one value is left in *out. launch_pass(const T* in, size_t count, pass_shape, T* dst)
/// enqueues one pass of the variant's kernel (and checks the launch).
template <class T, class LaunchPassT>
void run_passes(const T* in, std::size_t n, T* out, T* workspace, std::size_t tile_items, std::size_t max_grid,
                LaunchPassT launch_pass) {
  const pass_shape first = shape_pass(n, tile_items, max_grid);
  T* buffers[2] = {workspace, first.grid > 1 ? workspace + first.grid : nullptr};
  const T* src = in;
  std::size_t count = n;
  for (int pass = 0;; ++pass) {
    const pass_shape shape = shape_pass(count, tile_items, max_grid);
    T* dst = shape.grid == 1 ? out : buffers[pass % 2];
    launch_pass(src, count, shape, dst);
    if (shape.grid == 1) return;
    src = dst;
    count = shape.grid;
  }
}

/// The longest combine chain over all passes: the sum of depth_of_pass(count, pass_shape) per pass.
template <class PassDepthT>
std::size_t passes_depth(std::size_t n, std::size_t tile_items, std::size_t max_grid, PassDepthT depth_of_pass) {
  std::size_t depth = 0;
  for (std::size_t count = n;;) {
    const pass_shape shape = shape_pass(count, tile_items, max_grid);
    depth += depth_of_pass(count, shape);
    if (shape.grid == 1) return depth;
    count = shape.grid;
  }
}

/// Depth of a pass whose blocks reduce each tile with a tree of ceil(log2(tile_items)) levels and then chain
/// their tiles' results one after another in thread 0.
inline std::size_t tree_pass_depth(std::size_t tile_items, const pass_shape& shape) {
  return tree_depth(tile_items) + (shape.tiles_per_block - 1);
}

/// The variant interface (variants/variant.hpp) for a ladder step whose kernel reduces one tile of
/// StepT::policy::tile_items values per block (a run of consecutive tiles beyond max_blocks) into one partial:
///   template <int BlockThreads, class OpT, class T>
///   __global__ void kernel(const T* in, size_t count, size_t tiles_per_block, T* partials, OpT op);
/// StepT supplies name, summary, traits, policy {block_threads, tile_items, max_blocks} and
///   template <class OpT, class T> static constexpr auto kernel() { return &kernels::NAME<threads, OpT, T>; }
/// combine_depth assumes a tree over each tile; a step that combines otherwise declares its own (step 1).
template <class StepT>
struct tile_per_block_step {
  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    using policy = typename StepT::policy;
    return shape_pass(n, policy::tile_items, policy::max_blocks).grid;
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    using policy = typename StepT::policy;
    return workspace_items(n, policy::tile_items, policy::max_blocks) * sizeof(T);
  }

  /// Per pass: the tile's tree (ceil(log2(tile_items)) levels) plus the chain of a block's tiles.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    using policy = typename StepT::policy;
    return passes_depth(n, policy::tile_items, policy::max_blocks, [](std::size_t, const pass_shape& shape) {
      return tree_pass_depth(policy::tile_items, shape);
    });
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    using policy = typename StepT::policy;
    const auto kernel = StepT::template kernel<OpT, T>();
    run_passes(in, n, out, static_cast<T*>(workspace), policy::tile_items, policy::max_blocks,
               [&](const T* src, std::size_t count, const pass_shape& shape, T* dst) {
                 kernel<<<static_cast<unsigned>(shape.grid), policy::block_threads, 0, stream>>>(
                     src, count, shape.tiles_per_block, dst, op);
                 CUDA_TRY_LAUNCH();
               });
  }
};

}  // namespace reducelab::variants::ladder
