// The widening sum: 16-bit floating-point inputs (__half, __nv_bfloat16) summed in a wider accumulator (float).
// Each input is converted when it is loaded, so every addition rounds to the accumulator's precision, not the
// input's: 2^-24 instead of 2^-11 (half) or 2^-8 (bfloat16). The loop is vectorized_loads' one: 16-byte
// vectors (8 half items per load), a scalar head up to the first 16-byte boundary and a scalar tail, so a
// pointer offset by one item works. The same kernel, with InputT = AccT, does the second launch over the block
// results.
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "lab/kernels/vectorized_loads.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace reducelab::kernels {

namespace widening {

/// The input types a widening sum reads: the two 16-bit formats, and the accumulator itself (second launch).
template <class InputT, class AccT>
inline constexpr bool is_input_v = std::is_same_v<InputT, __half> || std::is_same_v<InputT, __nv_bfloat16> ||
                                   std::is_same_v<InputT, AccT>;

/// x converted to the accumulator type; exact (every half and bfloat16 value is a float).
template <class AccT, class InputT>
__host__ __device__ __forceinline__ AccT widen(InputT x) {
  if constexpr (std::is_same_v<InputT, __half>) {
    return static_cast<AccT>(__half2float(x));
  } else if constexpr (std::is_same_v<InputT, __nv_bfloat16>) {
    return static_cast<AccT>(__bfloat162float(x));
  } else {
    return static_cast<AccT>(x);
  }
}

/// The sum's operator over the accumulator, for the block tree; identity -0.0 (see functors/plus.cuh).
struct acc_plus {
  static constexpr bool commutative = true;
  template <class AccT>
  static constexpr __host__ __device__ AccT identity() {
    return -AccT(0);
  }
  template <class AccT>
  __device__ __forceinline__ AccT operator()(AccT a, AccT b) const {
    return a + b;
  }
};

template <class AccT, class InputT>
__device__ __forceinline__ AccT fold_vector(AccT acc, const uint4& raw) {
  constexpr std::size_t k = items_per_vector<InputT>;
  InputT items[k];
  memcpy(items, &raw, sizeof items);  // a register move, no memory
#pragma unroll
  for (std::size_t j = 0; j < k; ++j) acc += widen<AccT>(items[j]);
  return acc;
}

template <class AccT>
__global__ void write_value(AccT* out, AccT value) {
  *out = value;
}

}  // namespace widening

/// Block results of the sum of in[0, n) in AccT. in[0, head) and the tail are read one item at a time,
/// in[head, head + vectors * k) as 16-byte vectors of k = 16 / sizeof(InputT) items.
template <int BlockThreads, class InputT, class AccT>
__global__ void __launch_bounds__(BlockThreads)
    widening_sum(const InputT* __restrict__ in, std::size_t n, std::size_t head, AccT* __restrict__ block_results) {
  static_assert(std::is_floating_point_v<AccT>, "widening_sum: the accumulator is a floating-point type");
  static_assert(widening::is_input_v<InputT, AccT>, "widening_sum: inputs are __half, __nv_bfloat16 or AccT");
  static_assert(vector_bytes % sizeof(InputT) == 0, "widening_sum: sizeof(InputT) must divide 16");
  constexpr std::size_t k = items_per_vector<InputT>;
  __shared__ block::reduce_storage<AccT, BlockThreads> storage;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  const std::size_t vectors = (n - head) / k;
  const std::size_t tail = head + vectors * k;
  const uint4* __restrict__ vec = reinterpret_cast<const uint4*>(in + head);

  AccT acc = -AccT(0);  // the identity: a sum of only -0.0 stays -0.0
  for (std::size_t i = rank; i < head; i += threads) acc += widening::widen<AccT>(in[i]);
  std::size_t i = rank;
  for (; i + threads < vectors; i += 2 * threads) {  // two loads in flight before the adds
    const uint4 a = vec[i], b = vec[i + threads];
    acc = widening::fold_vector<AccT, InputT>(acc, a);
    acc = widening::fold_vector<AccT, InputT>(acc, b);
  }
  if (i < vectors) acc = widening::fold_vector<AccT, InputT>(acc, vec[i]);
  if (tail + rank < n) acc += widening::widen<AccT>(in[tail + rank]);

  acc = block::reduce_in_thread_order<BlockThreads>(acc, widening::acc_plus{}, storage);
  if (threadIdx.x == 0) block_results[blockIdx.x] = acc;
}

}  // namespace reducelab::kernels
