// Host side shared by the optimization-ladder variants (steps 1-7). Harris's kernels give each block one tile
// of the input and leave one partial per block, so a pass shrinks n by the tile size; like the CUDA sample's
// "recursive kernel invocation", the same kernel is launched again over the partials until a pass has a single
// block, which writes the result. Partials ping-pong between two workspace buffers.
//
// grid.x stops at 2^31 - 1: beyond max_grid tiles, each block takes a run of consecutive tiles (see
// kernels/ladder_tiles.cuh), so a block still owns a contiguous range and partials stay in input order.
#pragma once

#include "reducelab/variants/variant.hpp"

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

}  // namespace reducelab::variants::ladder
