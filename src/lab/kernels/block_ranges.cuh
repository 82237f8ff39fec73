// One partial per block over contiguous ranges: block b reduces [b*chunk, (b+1)*chunk) of the input with
// block::reduce_range and writes the result to partials[b]. Because every block owns a contiguous range and
// the partials come out in block order, a later pass that combines them in order keeps the input order.
// Shared by multi_pass (one tile per block, relaunched on its own partials), cpu_finish (partials finished on
// the host) and order_preserving (a device-sized grid, then one block over the partials).
#pragma once

#include "reducelab/block/block_reduce_range.cuh"

#include <cstddef>

namespace reducelab::kernels {

template <int BlockThreads, block::range_algorithm Algorithm, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    reduce_block_ranges(const T* __restrict__ in, std::size_t n, std::size_t chunk, T* __restrict__ partials,
                        OpT op) {
  __shared__ block::range_storage<T, BlockThreads, Algorithm> storage;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * chunk;
  const std::size_t begin = first < n ? first : n;
  const std::size_t end = n - begin > chunk ? begin + chunk : n;
  const T value = block::reduce_range<BlockThreads>(in, begin, end, op, storage);
  if (threadIdx.x == 0) partials[blockIdx.x] = value;
}

}  // namespace reducelab::kernels

namespace reducelab::kernels {

/// How n items are cut into contiguous per-block ranges: `chunk` items each (a multiple of `granule`, the
/// unit a block's algorithm loads whole), `grid` blocks, at most max_grid.
struct range_split {
  std::size_t chunk;
  std::size_t grid;
};

inline range_split split_into_ranges(std::size_t n, std::size_t max_grid, std::size_t granule) {
  const std::size_t per_block = (n + max_grid - 1) / max_grid;
  const std::size_t chunk = (per_block + granule - 1) / granule * granule;
  return {chunk, (n + chunk - 1) / chunk};
}

/// The unit reduce_range handles whole: one pass of the block for striped, one tile per warp for in_order.
template <int BlockThreads, block::range_algorithm Algorithm, class T>
constexpr std::size_t range_granule() {
  if constexpr (Algorithm == block::range_algorithm::striped) {
    return BlockThreads;
  } else {
    return BlockThreads / 32 * block::in_order_tile<T>;
  }
}

}  // namespace reducelab::kernels
