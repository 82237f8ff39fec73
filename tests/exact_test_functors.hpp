// Functors and inputs the library's GPU tests share (test_gpu_library.cu, test_gpu_segmented_library.cu): a sum
// that declares itself commutative, and composition of affine maps over uint32 or uint16 - exact and not commutative,
// so any reordering of the combines shows up as a wrong answer.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace exact_test {  // named: an unnamed one makes nvcc warn about the unread `commutative` members

struct add {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(0);
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

/// x -> a*x + b over an unsigned U (wrapping), composed left to right: exact and not commutative. affine_u32 is the
/// tests' 8-byte map; affine_u16 (4 bytes) puts four maps in a 16-byte vector, so an unaligned pointer leaves up to
/// three values before the first vector (a head) and after the last (a tail).
template <class U>
struct affine_map_of {
  U a, b;
};
using affine_u32 = affine_map_of<std::uint32_t>;
using affine_u16 = affine_map_of<std::uint16_t>;

struct compose {
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{1u, 0u};
  }
  template <class U>
  __host__ __device__ affine_map_of<U> operator()(const affine_map_of<U>& f, const affine_map_of<U>& g) const {
    using wide = std::uint32_t;  // uint16 operands would be promoted to int, whose overflow is undefined
    return {static_cast<U>(wide{g.a} * f.a), static_cast<U>(wide{g.a} * f.b + g.b)};  // first f, then g
  }
};

template <class U>
inline bool same(const affine_map_of<U>& x, const affine_map_of<U>& y) {
  return x.a == y.a && x.b == y.b;
}

/// Random maps with odd slopes (an even slope would make long compositions collapse towards 0).
template <class U = std::uint32_t>
inline std::vector<affine_map_of<U>> random_maps(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine_map_of<U>> v(n);
  for (auto& x : v) x = {static_cast<U>(rng() | 1u), static_cast<U>(rng())};
  return v;
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return v;
}

}  // namespace exact_test
