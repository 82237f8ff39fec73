// Thread-level folds: one thread combines the inputs it was dealt into a register, in index order.
// The loop issues four loads before it combines them, so every thread keeps four loads in flight even though
// each combine waits on the previous one (the chain, and so the result, is the same as the plain loop).
#pragma once

#include <cstddef>

namespace reducelab::thread {

/// acc op in[first] op in[first + stride] op ... over the indices below end, in index order.
template <class T, class OpT>
__device__ __forceinline__ T fold_strided(T acc, const T* in, std::size_t first, std::size_t end,
                                          std::size_t stride, OpT op) {
  std::size_t i = first;
  if (end > 3 * stride) {
    for (; i < end - 3 * stride; i += 4 * stride) {
      const T a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
      acc = op(acc, a);
      acc = op(acc, b);
      acc = op(acc, c);
      acc = op(acc, d);
    }
  }
  for (; i < end; i += stride) acc = op(acc, in[i]);
  return acc;
}

}  // namespace reducelab::thread
