// Compensated summation on the GPU: every running sum carries the rounding errors it has made so far, and the
// result is sum + compensation. The error of a rounded addition is exactly representable (an error-free
// transformation), so the only rounding left that is of the order of u is the last one, sum + c:
//   in a thread:   Neumaier's step (Kahan's, improved): s = a + b, err = (big - s) + small, exact if |big| >= |small|
//   in the tree:   Knuth's TwoSum on the two sums (no comparison needed), the two compensations added to err
//   at the end:    sum + c, once, by the thread that writes the result
// The kernel serves both launches: over the inputs (T, pairs written per block) and over the block pairs
// (pairs in, the finished T out).
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"

#include <cuda/std/cmath>

#include <cstddef>
#include <type_traits>

namespace reducelab::kernels {

namespace compensated {

/// A running sum and the sum of the rounding errors made to reach it; the value it stands for is sum + c.
template <class T>
struct pair {
  T sum;
  T c;
};

/// The exact error of s = a + b when a and b are finite and the addition did not overflow. When s is not
/// finite (an inf or NaN input, or overflow) the formulas give NaN (inf - inf); the error is then dropped,
/// so the compensation stays finite and the non-finite sum, which no later finite addition can bring back,
/// decides the result alone - the IEEE result of the plain sum (inf, -inf or NaN).
template <class T>
__device__ __forceinline__ T finite_or_zero(T err, T s) {
  return cuda::std::isfinite(s) ? err : T(0);
}

/// Neumaier's step: add one input to a running pair.
template <class T>
__device__ __forceinline__ pair<T> add(const pair<T>& acc, T x) {
  const T s = acc.sum + x;
  const T err = cuda::std::fabs(acc.sum) >= cuda::std::fabs(x) ? (acc.sum - s) + x : (x - s) + acc.sum;
  return {s, acc.c + finite_or_zero(err, s)};
}

/// TwoSum on the sums, then the compensations of both sides and the new error added together.
template <class T>
__device__ __forceinline__ pair<T> add(const pair<T>& a, const pair<T>& b) {
  const T s = a.sum + b.sum;
  const T bb = s - a.sum;
  const T err = (a.sum - (s - bb)) + (b.sum - bb);
  return {s, (a.c + b.c) + finite_or_zero(err, s)};
}

/// The value a pair stands for.
/// Signed zeros: a sum of only -0.0 inputs must be -0.0. The running sum keeps that sign by itself (it starts at
/// -0.0, and a rounded addition gives -0.0 only when both operands are -0.0, so sum is -0.0 exactly when every
/// input was), but the compensation does not: for a = b = -0.0 both error formulas give (-0 - -0) + -0 = +0,
/// so c becomes +0.0 at the first step whatever it started at, and sum + c would be -0 + +0 = +0. Hence: when
/// c is zero, sum + c equals sum numerically and sum is returned as is, keeping its sign; a nonzero c cannot
/// occur with sum == -0.0 (all errors of a sum of zeros are zeros).
template <class T>
__device__ __forceinline__ T resolve(const pair<T>& p) {
  if (!cuda::std::isfinite(p.sum) || p.c == T(0)) return p.sum;
  return p.sum + p.c;
}

/// The block tree's operator over pairs; identity (-0, -0), which every step passes through exactly.
struct pair_plus {
  static constexpr bool commutative = true;

  template <class PairT>
  static constexpr __host__ __device__ PairT identity() {
    using T = decltype(PairT::sum);
    return PairT{-T(0), -T(0)};
  }

  template <class T>
  __device__ __forceinline__ pair<T> operator()(const pair<T>& a, const pair<T>& b) const {
    return add(a, b);
  }
};

}  // namespace compensated

/// Block results of the compensated sum of in[0, n), T the floating-point type summed. InputT is T (first
/// launch) or compensated::pair<T> (second launch, over block results); OutputT is pair<T> (block results
/// for a second launch) or T (the finished sum, when this launch is the last).
template <int BlockThreads, class T, class InputT, class OutputT>
__global__ void __launch_bounds__(BlockThreads)
    compensated_sum(const InputT* __restrict__ in, std::size_t n, OutputT* __restrict__ out) {
  using pair_t = compensated::pair<T>;
  static_assert(std::is_same_v<InputT, T> || std::is_same_v<InputT, pair_t>, "compensated_sum: input T or pair<T>");
  static_assert(std::is_same_v<OutputT, T> || std::is_same_v<OutputT, pair_t>, "compensated_sum: output T or pair<T>");
  __shared__ block::reduce_storage<pair_t, BlockThreads> storage;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;

  pair_t acc = identity_of<compensated::pair_plus, pair_t>();
  // Four loads in flight before the dependent chain of adds (the order, so the result, is the plain loop's).
  if (n > 3 * stride) {
    for (; i < n - 3 * stride; i += 4 * stride) {
      const InputT a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
      acc = compensated::add(acc, a);
      acc = compensated::add(acc, b);
      acc = compensated::add(acc, c);
      acc = compensated::add(acc, d);
    }
  }
  for (; i < n; i += stride) acc = compensated::add(acc, in[i]);

  acc = block::reduce_in_thread_order<BlockThreads>(acc, compensated::pair_plus{}, storage);
  if (threadIdx.x == 0) {
    if constexpr (std::is_same_v<OutputT, T>) {
      out[blockIdx.x] = compensated::resolve(acc);
    } else {
      out[blockIdx.x] = acc;
    }
  }
}

}  // namespace reducelab::kernels
