// One launch, no value atomics (the CUDA samples' threadFenceReduction): every block reduces its contiguous
// range and stores its partial, makes the store visible device-wide (__threadfence), then draws a ticket from
// a counter with atomicAdd. The block that draws the last ticket knows every other partial is visible; it
// reduces the partials in block order and writes *out. The counter must be zero at launch (the host clears it
// on the stream) and is left at gridDim.x.
#pragma once

#include "reducelab/block/block_reduce_range.cuh"

#include <cstddef>

namespace reducelab::kernels {

template <int BlockThreads, block::range_algorithm Algorithm, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    single_pass_last_block(const T* __restrict__ in, std::size_t n, std::size_t chunk, T* partials,
                           unsigned* ticket_counter, T* out, OpT op) {
  __shared__ block::range_storage<T, BlockThreads, Algorithm> storage;
  __shared__ bool last_block;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * chunk;
  const std::size_t begin = first < n ? first : n;
  const std::size_t end = n - begin > chunk ? begin + chunk : n;
  const T value = block::reduce_range<BlockThreads>(in, begin, end, op, storage);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = value;
    __threadfence();  // release: the partial is visible to every block before the ticket is drawn
    last_block = atomicAdd(ticket_counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();  // also frees `storage` for the second reduce_range
  if (!last_block) return;
  __threadfence();  // acquire: the partials the other blocks published are read after their tickets
  const T total = block::reduce_range<BlockThreads>(static_cast<const T*>(partials), 0, gridDim.x, op, storage);
  if (threadIdx.x == 0) *out = total;
}

}  // namespace reducelab::kernels
