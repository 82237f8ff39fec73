// Segmented step 3 - one block per segment, CUB's shape (DeviceSegmentedReduce launches one block per segment).
// The block reduces its segment with block::reduce_range: commutative functors take the striped algorithm
// (thread t folds first+t, first+t+B, ..., then block::reduce_in_thread_order), others the in-order warp tiles
// (each warp a contiguous run of tiles, warps combined in warp order), so every functor gets its in-order
// result and commutative ones get CUB's load pattern.
#pragma once

#include "lab/segmented/kernels/segments.cuh"
#include "reducelab/block/block_reduce_range.cuh"

#include <cstddef>

namespace reducelab::segmented::kernels {

template <int BlockThreads, block::range_algorithm Algorithm, class OpT, class T, class OffsetT>
__global__ void __launch_bounds__(BlockThreads)
    block_per_segment(const T* __restrict__ in, const OffsetT* __restrict__ begin, const OffsetT* __restrict__ end,
                      std::size_t num_segments, T* __restrict__ out, OpT op) {
  __shared__ block::range_storage<T, BlockThreads, Algorithm> storage;
  for (std::size_t s = blockIdx.x; s < num_segments; s += gridDim.x) {
    const segment seg = segment_at(begin, end, s);
    const T value = block::reduce_range<BlockThreads>(in, seg.first, seg.last, op, storage);
    if (threadIdx.x == 0) out[s] = value;
    __syncthreads();  // the storage is reused by the block's next segment
  }
}

}  // namespace reducelab::segmented::kernels
