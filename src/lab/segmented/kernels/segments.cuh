// What every segmented kernel shares: CUB's offsets convention and the grid-stride launch over segments.
//
// Segment s is [begin[s], end[s]) of the input; end[s] <= begin[s] means empty, and an empty segment reduces
// to the identity. begin and end are separate arrays, so segments may leave gaps, overlap or come in any order;
// contiguous segments pass (offsets, offsets + 1) as CUB's documentation shows.
#pragma once

#include <cstddef>

namespace reducelab::segmented {

/// The largest grid.x of every GPU since compute capability 3.0: beyond it a kernel's units (threads, groups,
/// warps, blocks) take segments s, s + units, s + 2*units, ...
inline constexpr std::size_t max_grid_x = 2147483647;

/// Blocks for `units` independent units of work at `units_per_block` per block, at least 1, at most max_grid_x.
inline unsigned grid_for(std::size_t units, std::size_t units_per_block) {
  const std::size_t blocks = (units + units_per_block - 1) / units_per_block;
  return static_cast<unsigned>(blocks == 0 ? 1 : blocks < max_grid_x ? blocks : max_grid_x);
}

/// One segment as input indices [first, last); an empty segment has first == last.
struct segment {
  std::size_t first;
  std::size_t last;
};

template <class OffsetT>
__device__ __forceinline__ segment segment_at(const OffsetT* __restrict__ begin, const OffsetT* __restrict__ end,
                                              std::size_t s) {
  const OffsetT b = begin[s];
  const OffsetT e = end[s];
  if (e <= b) return {0, 0};
  return {static_cast<std::size_t>(b), static_cast<std::size_t>(e)};
}

}  // namespace reducelab::segmented
