// Warp shuffles for any trivially copyable type. The hardware moves 32-bit words; a type that __shfl_*_sync
// does not take directly (bool, 1- and 2-byte integers, structs) is moved word by word through a zeroed buffer.
#pragma once

#include <cuda/std/type_traits>

#include <cstring>

namespace reducelab::warp {

inline constexpr unsigned full_mask = 0xffffffffu;

namespace detail {
template <class T>
inline constexpr bool native_shuffle =
    cuda::std::is_same_v<T, int> || cuda::std::is_same_v<T, unsigned> || cuda::std::is_same_v<T, long long> ||
    cuda::std::is_same_v<T, unsigned long long> || cuda::std::is_same_v<T, long> ||
    cuda::std::is_same_v<T, unsigned long> || cuda::std::is_same_v<T, float> || cuda::std::is_same_v<T, double>;

template <class T, class ShuffleWordT>
__device__ __forceinline__ T shuffle_words(const T& v, ShuffleWordT shuffle_word) {
  static_assert(cuda::std::is_trivially_copyable_v<T>, "reducelab: shuffled values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned buf[words] = {};
  memcpy(buf, &v, sizeof(T));
#pragma unroll
  for (int w = 0; w < words; ++w) buf[w] = shuffle_word(buf[w]);
  T out;
  memcpy(&out, buf, sizeof(T));
  return out;
}
}  // namespace detail

/// The value held by lane (this lane + delta); lanes past the end get their own value back.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta, unsigned mask = full_mask) {
  if constexpr (detail::native_shuffle<T>) {
    return __shfl_down_sync(mask, v, delta);
  } else {
    return detail::shuffle_words(v, [=](unsigned w) { return __shfl_down_sync(mask, w, delta); });
  }
}

/// The value held by lane `src_lane`.
template <class T>
__device__ __forceinline__ T shfl_idx(const T& v, int src_lane, unsigned mask = full_mask) {
  if constexpr (detail::native_shuffle<T>) {
    return __shfl_sync(mask, v, src_lane);
  } else {
    return detail::shuffle_words(v, [=](unsigned w) { return __shfl_sync(mask, w, src_lane); });
  }
}

/// The value held by lane (this lane ^ lane_mask).
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, unsigned lane_mask, unsigned mask = full_mask) {
  if constexpr (detail::native_shuffle<T>) {
    return __shfl_xor_sync(mask, v, lane_mask);
  } else {
    return detail::shuffle_words(v, [=](unsigned w) { return __shfl_xor_sync(mask, w, lane_mask); });
  }
}

}  // namespace reducelab::warp
