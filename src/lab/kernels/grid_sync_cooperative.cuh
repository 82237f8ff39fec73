// One cooperative launch: every block reduces its contiguous range and stores its partial, the whole grid
// waits at cooperative_groups::this_grid().sync() (which also makes the partials visible), and block 0
// combines the partials in block order. grid.sync() is only legal when every block is resident at once, which
// is what cudaLaunchCooperativeKernel guarantees (or refuses); it needs no -rdc since CUDA 11.
#pragma once

#include "reducelab/block/block_reduce_range.cuh"

#include <cooperative_groups.h>

#include <cstddef>

namespace reducelab::kernels {

template <int BlockThreads, block::range_algorithm Algorithm, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    grid_sync_cooperative(const T* __restrict__ in, std::size_t n, std::size_t chunk, T* partials, T* out, OpT op) {
  __shared__ block::range_storage<T, BlockThreads, Algorithm> storage;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * chunk;
  const std::size_t begin = first < n ? first : n;
  const std::size_t end = n - begin > chunk ? begin + chunk : n;
  const T value = block::reduce_range<BlockThreads>(in, begin, end, op, storage);
  if (threadIdx.x == 0) partials[blockIdx.x] = value;
  ::cooperative_groups::this_grid().sync();  // a grid-wide barrier: every partial stored and visible
  if (blockIdx.x != 0) return;
  const T total = block::reduce_range<BlockThreads>(static_cast<const T*>(partials), 0, gridDim.x, op, storage);
  if (threadIdx.x == 0) *out = total;
}

}  // namespace reducelab::kernels
