// Functors and inputs the library's GPU tests share (test_gpu_library.cu, test_gpu_segmented_library.cu): a sum
// that declares itself commutative, and composition of affine maps over uint32 - exact and not commutative, so
// any reordering of the combines shows up as a wrong answer.
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

/// x -> a*x + b over uint32 (wrapping), composed left to right: exact and not commutative.
struct affine_u32 {
  std::uint32_t a, b;
};
struct compose {
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{1u, 0u};
  }
  __host__ __device__ affine_u32 operator()(const affine_u32& f, const affine_u32& g) const {
    return {g.a * f.a, g.a * f.b + g.b};  // first f, then g
  }
};

inline bool same(const affine_u32& x, const affine_u32& y) { return x.a == y.a && x.b == y.b; }

/// The same maps over uint16 (x -> a*x + b mod 2^16): 4 bytes, so a 16-byte vector holds four and an unaligned
/// pointer leaves up to three values before the first vector (a head) and after the last (a tail).
struct affine_u16 {
  std::uint16_t a, b;
};
struct compose16 {
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{1u, 0u};
  }
  __host__ __device__ affine_u16 operator()(const affine_u16& f, const affine_u16& g) const {
    return {static_cast<std::uint16_t>(g.a * f.a), static_cast<std::uint16_t>(g.a * f.b + g.b)};  // first f, then g
  }
};

inline bool same(const affine_u16& x, const affine_u16& y) { return x.a == y.a && x.b == y.b; }

/// Random maps with odd slopes (an even slope would make long compositions collapse towards 0).
inline std::vector<affine_u32> random_maps(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine_u32> v(n);
  for (auto& x : v) x = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
  return v;
}

inline std::vector<affine_u16> random_maps16(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine_u16> v(n);
  for (auto& x : v) x = {static_cast<std::uint16_t>(rng() | 1u), static_cast<std::uint16_t>(rng())};
  return v;
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return v;
}

}  // namespace exact_test
