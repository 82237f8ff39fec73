// The caller's contract for segment offsets, checked on the host before anything runs: a bad offset on the GPU
// is an out-of-bounds read or a silently wrong answer, so the tool refuses it here with a message naming the
// first bad segment. Segment i is [begin[i], end[i]) of an input of n elements; every offset must lie in
// [0, n]. CUB's convention is that end <= begin means an empty segment; here end == begin is an empty segment
// (allowed), and end < begin is refused by check as almost certainly a bug. Begin offsets must not decrease:
// our workloads are contiguous and in order, so a decreasing begin is a bug too (CUB itself would accept it).
#pragma once

#include "lab/segmented/host/layouts.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace reducelab::segmented {

/// "" when segments [begin[i], end[i]), i < num_segments, satisfy the contract over n elements, else one line
/// naming the first bad segment and what is wrong with it.
template <class OffsetT>
std::string offsets_problem(const OffsetT* begin, const OffsetT* end, std::size_t num_segments, std::size_t n) {
  static_assert(std::is_integral_v<OffsetT> && !std::is_same_v<OffsetT, bool>, "offsets must be integers");
  const auto text = [](OffsetT v) { return std::to_string(+v); };  // + prints 8-bit offsets as numbers
  const auto segment = [](std::size_t i) { return "segment " + std::to_string(i) + ": "; };
  const auto past_n = [n](OffsetT v) {
    if constexpr (std::is_signed_v<OffsetT>) {
      if (v < 0) return false;  // reported as negative instead
    }
    return static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(n);
  };
  for (std::size_t i = 0; i < num_segments; ++i) {
    const OffsetT b = begin[i], e = end[i];
    if constexpr (std::is_signed_v<OffsetT>) {
      if (b < 0) return segment(i) + "begin offset " + text(b) + " is negative";
      if (e < 0) return segment(i) + "end offset " + text(e) + " is negative";
    }
    if (past_n(b)) return segment(i) + "begin offset " + text(b) + " is past n = " + std::to_string(n);
    if (past_n(e)) return segment(i) + "end offset " + text(e) + " is past n = " + std::to_string(n);
    if (e < b) return segment(i) + "end offset " + text(e) + " is before its begin offset " + text(b);
    if (i > 0 && b < begin[i - 1]) {
      return segment(i) + "begin offset " + text(b) + " is before segment " + std::to_string(i - 1) +
             "'s begin offset " + text(begin[i - 1]) + " (offsets must not decrease)";
    }
  }
  return "";
}

/// The same for one offsets array of num_segments + 1 entries (segment i = [offsets[i], offsets[i+1])).
template <class OffsetT>
std::string offsets_problem(const OffsetT* offsets, std::size_t num_segments, std::size_t n) {
  return offsets_problem(offsets, offsets + 1, num_segments, n);
}

/// The same for a layout over n elements (its single offsets array).
inline std::string offsets_problem(const segment_layout& layout, std::size_t n) {
  if (layout.offsets.empty()) return "layout '" + layout.name + "' has no offsets (it needs num_segments + 1)";
  return offsets_problem(layout.offsets.data(), layout.num_segments(), n);
}

}  // namespace reducelab::segmented
