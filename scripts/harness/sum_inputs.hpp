// What the harnesses that time plus over int32 and double share (finish_parts.cu, small_grid_spread.cu): their random
// inputs, and the check of a result against the host's sum (exact for int32, which wraps; within 1e-9 relative for
// double, where a lost or doubled partial is off by whole values).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace harness_sums {

/// n values seeded by n: int32 over their whole range, double in [-1, 1).
template <class T>
std::vector<T> values_for(std::size_t n) {
  static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, double>, "int32 or double");
  std::vector<T> v(n);
  std::mt19937_64 rng(n);
  if constexpr (std::is_same_v<T, std::int32_t>) {
    for (auto& x : v) x = static_cast<std::int32_t>(rng());
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& x : v) x = d(rng);
  }
  return v;
}

/// Whether `got` is the sum of `host`.
template <class T>
bool agrees(T got, const std::vector<T>& host) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    std::uint32_t sum = 0;
    for (T x : host) sum += static_cast<std::uint32_t>(x);
    return static_cast<std::uint32_t>(got) == sum;
  } else {
    long double sum = 0;
    for (T x : host) sum += x;
    return std::fabs(static_cast<long double>(got) - sum) <= 1e-9L * (std::fabs(sum) + 1);
  }
}

}  // namespace harness_sums
