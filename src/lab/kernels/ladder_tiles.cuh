// The block-level frame of the shared-memory tree kernels of the optimization ladder (steps 2-7): a block
// reduces its run of consecutive tiles (one tile, as in Harris's kernels, unless the input needs more than
// 2^31 - 1 blocks), each with the step's tree, and thread 0 chains the tiles' results in input order.
#pragma once

#include "reducelab/core/traits.hpp"

#include <cstddef>

namespace reducelab::kernels {

/// reduce_tile(begin) reduces the tile starting at input index `begin` with the whole block and returns the
/// result, valid in thread 0 only. Thread 0 writes the block's partial to block_results[blockIdx.x].
template <class T, class OpT, class ReduceTileT>
__device__ __forceinline__ void reduce_block_tiles(std::size_t n, std::size_t tile_items, std::size_t tiles_per_block,
                                                   T* block_results, OpT op, ReduceTileT reduce_tile) {
  const std::size_t tiles = (n + tile_items - 1) / tile_items;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  const std::size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
  T acc = identity_of<OpT, T>();
  for (std::size_t tile = first; tile < last; ++tile) {
    if (tile != first) __syncthreads();  // the previous tile's tree is done with shared memory
    const T tile_result = reduce_tile(tile * tile_items);
    if (threadIdx.x == 0) acc = tile == first ? tile_result : op(acc, tile_result);
  }
  if (threadIdx.x == 0) block_results[blockIdx.x] = acc;
}

}  // namespace reducelab::kernels
