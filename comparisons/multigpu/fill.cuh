// Inputs of `reducelab-multigpu compare`, made on the device from a hash of (key, global index): gigabytes per
// case are filled in milliseconds, without a host copy, and element i has the same value whichever GPU holds it,
// so the one-GPU array and the split shards hold the same data. splitmix64's finalizer is the hash.
//
// Values per type (the domains of functors/*.cuh's random inputs):
//   int32        all 32 bits (the sum wraps, exactly);
//   float        multiples of 2^-23 in [-1, 1), exact in a float (|x| < float_fill_magnitude);
//   float_idx32  (0..999, global index): ties are common, decided by the index;
//   moments64    (1, 10 + U(-1, 1), 0): one observation each;
//   affine32     (odd multiplier, offset): a long composition never collapses to a constant map.
#pragma once

#include "comparisons/multigpu/options.hpp"
#include "functors/affine_compose.cuh"
#include "functors/argmax.cuh"
#include "functors/mean_variance.cuh"
#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace reducelab::multigpu::tool {

/// Every float the fill makes is below this in magnitude (the bound the NCCL baseline's float check uses).
inline constexpr double float_fill_magnitude = 1.0;

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The value of element `index` of the stream named by `key`.
template <class T>
__host__ __device__ T hashed_value(std::uint64_t key, std::uint64_t index) {
  const std::uint64_t h = mix64(key + (index + 1) * 0x9e3779b97f4a7c15ull);
  if constexpr (std::is_same_v<T, std::int32_t>) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(h));
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(static_cast<std::int32_t>(h >> 40) - (1 << 23)) * (1.0f / (1 << 23));
  } else if constexpr (std::is_same_v<T, functors::float_idx32>) {
    return T{static_cast<float>(h % 1000), static_cast<std::uint32_t>(index)};
  } else if constexpr (std::is_same_v<T, functors::moments64>) {
    const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1), 53 bits
    return T{1.0, 10.0 + (2.0 * u - 1.0), 0.0};
  } else {
    static_assert(std::is_same_v<T, functors::affine32>, "hashed_value: no fill for this value type");
    return T{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32)};
  }
}

template <class T>
__global__ void fill_hashed(T* out, std::size_t n, std::uint64_t first_index, std::uint64_t key) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = hashed_value<T>(key, first_index + i);
}

/// out[i] = hashed_value<T>(key, first_index + i) for i < n, on `stream` (of the current device).
template <class T>
void fill_on_device(T* out, std::size_t n, std::uint64_t first_index, std::uint64_t key, cudaStream_t stream) {
  if (n == 0) return;
  int device = 0, sms = 0;
  CUDA_TRY(cudaGetDevice(&device));
  CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t blocks = std::min<std::size_t>((n + 255) / 256, static_cast<std::size_t>(sms) * 8);
  fill_hashed<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(out, n, first_index, key);
  CUDA_TRY_LAUNCH();
}

/// A case's key: the seed and the case's name hashed together, so every case has inputs of its own.
inline std::uint64_t case_key(std::uint64_t seed, const case_name& c) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over "part functor/type"
  for (const char ch : std::string(to_string(c.which)) + " " + c.label()) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  return mix64(seed ^ h);
}

}  // namespace reducelab::multigpu::tool
