// What every variant declares about itself, and the applicability rule computed from it.
//
// A variant is a struct with
//   static constexpr const char* name, summary;   summary says what it fixes over the previous ladder step
//   static constexpr variant_traits traits;       requirements and guarantees, below
//   struct policy;                                 its tuning numbers, in one place
//   template <class OpT, class T> static size_t workspace_bytes(size_t n);
//   template <class OpT, class T> static void run(const T* in, size_t n, T* out, void* workspace,
//                                                 size_t workspace_bytes, OpT op, cudaStream_t stream);
//   template <class OpT, class T> static size_t combine_depth(size_t n);   the longest chain of combines any
//                                                 input goes through, for floating-point error bounds
// and optionally `template <class OpT, class T> static constexpr const char* extra_refusal()` for a
// requirement the traits below cannot express. run() is only instantiated for applicable (OpT, T) pairs.
// Variants that share a launch shape inherit workspace_bytes/run (and more) from a base and name only their
// kernel: ladder::tile_per_block_step (variants/ladder_passes.cuh, steps 1-7) and grid_stride_two_launch_step
// (variants/grid_stride_launch.cuh).
// The public entry (reducelab/reduce.cuh) handles n == 0, null pointers and the workspace check.
#pragma once

#include "reducelab/core/traits.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace reducelab {

struct variant_traits {
  int ladder_step = 0;                  // position in the optimization ladder (1 = most naive)
  bool needs_commutative = false;       // it combines operands in an order that is not the input order
  std::size_t max_value_bytes = 0;      // 0: any size; atomic variants: 8
  bool needs_cooperative_launch = false;
  bool power_of_two_block = false;      // its tree halves the block, so the block size is a power of two
  bool preserves_order = false;         // a non-commutative functor gives exactly the in-order result
  bool deterministic = true;            // same input, same launch: bitwise the same result every run
  bool synchronizes_host = false;       // it waits for the GPU inside the call (a host finish, a library that
                                        // copies the result back): it cannot run on a held stream, so the
                                        // timing engine times it with the host clock
};

namespace detail {
template <class VariantT, class OpT, class T, class = void>
struct has_extra_refusal : std::false_type {};
template <class VariantT, class OpT, class T>
struct has_extra_refusal<VariantT, OpT, T, std::void_t<decltype(VariantT::template extra_refusal<OpT, T>())>>
    : std::true_type {};
}  // namespace detail

/// Why VariantT cannot reduce T with OpT, or nullptr if it can. Evaluated at compile time.
template <class VariantT, class OpT, class T>
constexpr const char* refusal_reason() {
  constexpr variant_traits t = VariantT::traits;
  if (t.needs_commutative && !is_commutative_v<OpT>) return "needs a commutative functor";
  if (t.max_value_bytes != 0 && sizeof(T) > t.max_value_bytes) {
    return "needs a value type of at most 8 bytes (it combines with atomics)";
  }
  if constexpr (detail::has_extra_refusal<VariantT, OpT, T>::value) {
    return VariantT::template extra_refusal<OpT, T>();
  }
  return nullptr;
}

template <class VariantT, class OpT, class T>
inline constexpr bool is_applicable_v = refusal_reason<VariantT, OpT, T>() == nullptr;

/// Integer ceiling division.
template <class IntT>
constexpr __host__ __device__ IntT ceil_div(IntT a, IntT b) {
  return (a + b - 1) / b;
}

/// Number of combine levels of a tree over k values: ceil(log2(k)).
constexpr std::size_t tree_depth(std::size_t k) {
  std::size_t d = 0;
  while ((std::size_t{1} << d) < k) ++d;
  return d;
}

}  // namespace reducelab
