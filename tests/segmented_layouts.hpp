// Segment layouts for the segmented GPU tests (test_gpu_segmented_library.cu, segmented_every_functor.cuh): segment i
// is [begins[i], ends[i]) of n values, and the lengths they are built from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace segmented_layouts {

/// A layout: segment i is [begins[i], ends[i]) (empty when ends[i] <= begins[i]); `n` values back it.
struct layout {
  std::vector<long long> begins, ends;
  std::size_t n = 0;
  std::string name;
};

/// Consecutive segments of the given lengths from `origin`: one offsets array (flat path).
inline layout consecutive(const std::vector<long long>& lengths, const std::string& name, long long origin = 0) {
  layout l;
  l.name = name;
  long long at = origin;
  for (long long len : lengths) {
    l.begins.push_back(at);
    at += len;
    l.ends.push_back(at);
  }
  l.n = static_cast<std::size_t>(at) + 3;  // a few values past the last segment, never read
  return l;
}

inline std::vector<long long> uniform(std::size_t count, long long len) { return std::vector<long long>(count, len); }

inline std::vector<long long> random_lengths(std::size_t count, long long lo, long long hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> dist(lo, hi);
  std::vector<long long> l(count);
  for (auto& x : l) x = dist(rng);
  return l;
}

}  // namespace segmented_layouts
