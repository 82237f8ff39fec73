// Segmented step 1 - one thread per segment: thread s folds in[begin[s]], ..., in[end[s] - 1] left to right
// (thread::fold_strided with stride 1: four loads in flight, one combine chain). Order kept for any functor.
// Right for segments of 1-4 items, where a segment is one or two cache lines and a whole warp finishes 32
// segments at once. It collapses on long segments: the 32 lanes of a warp read 32 different cache lines per
// step (no coalescing), and one long segment holds its whole warp until it is done.
#pragma once

#include "lab/segmented/kernels/segments.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"

#include <cstddef>

namespace reducelab::segmented::kernels {

template <int BlockThreads, class OpT, class T, class OffsetT>
__global__ void __launch_bounds__(BlockThreads)
    thread_per_segment(const T* __restrict__ in, const OffsetT* __restrict__ begin,
                       const OffsetT* __restrict__ end, std::size_t num_segments, T* __restrict__ out, OpT op) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  for (std::size_t s = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x; s < num_segments;
       s += stride) {
    const segment seg = segment_at(begin, end, s);
    out[s] = thread::fold_strided(identity_of<OpT, T>(), in, seg.first, seg.last, 1, op);
  }
}

}  // namespace reducelab::segmented::kernels
