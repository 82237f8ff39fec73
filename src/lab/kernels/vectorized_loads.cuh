// The grid-stride kernel reading 16-byte vectors: each load instruction brings 16 bytes (LDG.128) instead of
// sizeof(T), so a warp moves 512 bytes per instruction and 4x fewer loads are in the queues for 4-byte types.
// The input pointer need not be 16-byte aligned: the items before the first 16-byte boundary (the head) and
// the items after the last whole vector (the tail) are read one by one, by the first threads of the grid.
// A T that is not aligned to its own size never reaches a 16-byte boundary in whole items; the host then
// passes head = n and the kernel reads everything in a scalar grid-stride loop (correct, not vectorized).
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace reducelab::kernels {

inline constexpr std::size_t vector_bytes = 16;

template <class T>
inline constexpr std::size_t items_per_vector = vector_bytes / sizeof(T);

/// Items of `in` before its first 16-byte boundary; n when no item starts on one.
template <class T>
std::size_t vector_head(const T* in, std::size_t n) {
  const auto address = reinterpret_cast<std::uintptr_t>(in);
  if (address % sizeof(T) != 0) return n;
  const std::size_t head = (vector_bytes - address % vector_bytes) % vector_bytes / sizeof(T);
  return head < n ? head : n;
}

template <class T, class OpT>
__device__ __forceinline__ T fold_vector(T acc, const uint4& raw, OpT op) {
  T items[items_per_vector<T>];
  memcpy(items, &raw, sizeof items);  // a register move, no memory: the compiler sees through it
#pragma unroll
  for (std::size_t j = 0; j < items_per_vector<T>; ++j) acc = op(acc, items[j]);
  return acc;
}

/// in[0, head) and the tail are scalar; in[head, head + vectors * k) is read as `vectors` 16-byte vectors.
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    vectorized_loads(const T* __restrict__ in, std::size_t n, std::size_t head, T* __restrict__ block_results,
                     OpT op) {
  static_assert(vector_bytes % sizeof(T) == 0, "vectorized_loads: sizeof(T) must divide 16");
  constexpr std::size_t k = items_per_vector<T>;
  __shared__ block::reduce_storage<T, BlockThreads> storage;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  const std::size_t vectors = (n - head) / k;
  const std::size_t tail = head + vectors * k;
  const uint4* __restrict__ vec = reinterpret_cast<const uint4*>(in + head);

  T acc = identity_of<OpT, T>();
  for (std::size_t i = rank; i < head; i += threads) acc = op(acc, in[i]);  // < 16 items unless unaligned T
  std::size_t i = rank;
  for (; i + threads < vectors; i += 2 * threads) {  // two loads in flight before the combines
    const uint4 a = vec[i], b = vec[i + threads];
    acc = fold_vector(acc, a, op);
    acc = fold_vector(acc, b, op);
  }
  if (i < vectors) acc = fold_vector(acc, vec[i], op);
  if (tail + rank < n) acc = op(acc, in[tail + rank]);

  acc = block::reduce_in_thread_order<BlockThreads>(acc, op, storage);
  if (threadIdx.x == 0) block_results[blockIdx.x] = acc;
}

}  // namespace reducelab::kernels
