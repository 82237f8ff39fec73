// The library baselines for segmented and keyed reductions, with the shape of the segmented variants
// (src/lab/segmented/variants/all_segmented_variants.cuh) plus a caller-sized workspace, like baselines.cuh:
//   template <class OpT, class T, class OffsetT> static size_t workspace_bytes(size_t n, size_t num_segments);
//   template <class OpT, class T, class OffsetT> static void run(const T* in, const OffsetT* begin,
//       const OffsetT* end, size_t num_segments, T* out, void* workspace, size_t bytes, OpT op, cudaStream_t);
// and for reduce-by-key
//   template <class OpT, class K, class T> static size_t workspace_bytes(size_t n);
//   template <class OpT, class K, class T> static void run(const K* keys, const T* values, size_t n,
//       K* unique_keys_out, T* values_out, std::int64_t* num_runs_out, void* workspace, size_t bytes, OpT op,
//       cudaStream_t);
// Each summary names the exact call. A baseline that cannot take a functor says why in extra_refusal() (and
// through its traits), and its run() does not compile for it: never silently wrong.
//   cub::DeviceSegmentedReduce documents "does not support binary reduction operators that are
//   non-commutative", so both of its rows need a commutative functor.
//   cub::DeviceReduce::ReduceByKey and thrust::reduce_by_key are scans (a ReduceBySegmentOp over (flag, value)
//   pairs, combined left to right) and state no commutativity requirement; they are marked order-preserving
//   and tested on a non-commutative functor (tests/test_gpu_segmented_variants.cu).
#pragma once

#include "comparisons/baselines.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace reducelab::baselines::segmented {

namespace detail {
template <class>
inline constexpr bool dependent_false = false;
}  // namespace detail

/// cub::DeviceSegmentedReduce::Reduce with the user's functor; the identity is the initial value of every
/// segment, so an empty segment (end <= begin) comes out as the identity.
struct cub_segmented_reduce {
  static constexpr const char* name = "cub::DeviceSegmentedReduce::Reduce";
  static constexpr const char* summary =
      "cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, out, num_segments, begin, end, op, identity, stream)";
  static constexpr family library = family::cub;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ true, 0, false, false, false, true};

  template <class OpT, class T, class OffsetT>
  static std::size_t workspace_bytes(std::size_t, std::size_t num_segments) {
    std::size_t bytes = 0;
    CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, static_cast<const T*>(nullptr),
                                                static_cast<T*>(nullptr), static_cast<std::int64_t>(num_segments),
                                                static_cast<const OffsetT*>(nullptr),
                                                static_cast<const OffsetT*>(nullptr), OpT{}, identity_of<OpT, T>()));
    return bytes;
  }

  template <class OpT, class T, class OffsetT>
  static void run(const T* in, const OffsetT* begin, const OffsetT* end, std::size_t num_segments, T* out,
                  void* workspace, std::size_t bytes, OpT op, cudaStream_t stream) {
    static_assert(is_commutative_v<OpT>,
                  "cub::DeviceSegmentedReduce does not support non-commutative reduction operators");
    CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(workspace, bytes, in, out, static_cast<std::int64_t>(num_segments),
                                                begin, end, op, identity_of<OpT, T>(), stream));
  }
};

/// CUB's operator-specific entries with CCCL's own operators: DeviceSegmentedReduce::Sum (cuda::std::plus), Max
/// (cuda::maximum), Min (cuda::minimum), for functors that declare `builtin` plus, maximum or minimum. Their
/// initial values are CUB's, not the functor's: Sum starts every segment from T{} (+0.0, so an empty
/// floating-point segment is +0.0 where the identity is -0.0), Max from numeric_limits<T>::lowest() and Min
/// from max() (not -inf/+inf); for integers these are the identities.
struct cub_segmented_builtin {
  static constexpr const char* name = "cub::DeviceSegmentedReduce::Sum|Max|Min";
  static constexpr const char* summary =
      "cub::DeviceSegmentedReduce::Sum|Max|Min(temp, bytes, in, out, num_segments, begin, end, stream)";
  static constexpr family library = family::cub;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ true, 0, false, false, false, true};

  template <class OpT, class T>
  static constexpr const char* extra_refusal() {
    constexpr builtin_op k = builtin_kind_v<OpT>;
    if (k != builtin_op::plus && k != builtin_op::maximum && k != builtin_op::minimum) {
      return "CUB's segmented Sum/Max/Min serve only functors declaring builtin plus, maximum or minimum";
    }
    if (!std::is_arithmetic_v<T> || std::is_same_v<T, bool>) return "CUB's Sum/Max/Min serve arithmetic types";
    return nullptr;
  }

  template <class OpT, class T, class OffsetT>
  static cudaError_t dispatch(void* ws, std::size_t& bytes, const T* in, T* out, std::size_t num_segments,
                              const OffsetT* begin, const OffsetT* end, cudaStream_t stream) {
    const auto segments = static_cast<std::int64_t>(num_segments);
    constexpr builtin_op k = builtin_kind_v<OpT>;
    if constexpr (k == builtin_op::plus) {
      return cub::DeviceSegmentedReduce::Sum(ws, bytes, in, out, segments, begin, end, stream);
    } else if constexpr (k == builtin_op::maximum) {
      return cub::DeviceSegmentedReduce::Max(ws, bytes, in, out, segments, begin, end, stream);
    } else if constexpr (k == builtin_op::minimum) {
      return cub::DeviceSegmentedReduce::Min(ws, bytes, in, out, segments, begin, end, stream);
    } else {
      static_assert(detail::dependent_false<OpT>,
                    "cub::DeviceSegmentedReduce::Sum|Max|Min: this functor is not a built-in plus, maximum or "
                    "minimum (its builtin member names none of them); use cub_segmented_reduce");
      return cudaErrorInvalidValue;
    }
  }

  template <class OpT, class T, class OffsetT>
  static std::size_t workspace_bytes(std::size_t, std::size_t num_segments) {
    std::size_t bytes = 0;
    CUDA_TRY(dispatch<OpT, T, OffsetT>(nullptr, bytes, nullptr, nullptr, num_segments, nullptr, nullptr, nullptr));
    return bytes;
  }

  template <class OpT, class T, class OffsetT>
  static void run(const T* in, const OffsetT* begin, const OffsetT* end, std::size_t num_segments, T* out,
                  void* workspace, std::size_t bytes, OpT, cudaStream_t stream) {
    CUDA_TRY(dispatch<OpT, T, OffsetT>(workspace, bytes, in, out, num_segments, begin, end, stream));
  }
};

/// cub::DeviceReduce::ReduceByKey (keys compared with ==). num_items is passed as uint32 below 2^32 pairs, so
/// CUB runs its 32-bit offsets (what a caller with an int count gets), as uint64 otherwise.
struct cub_reduce_by_key {
  static constexpr const char* name = "cub::DeviceReduce::ReduceByKey";
  static constexpr const char* summary =
      "cub::DeviceReduce::ReduceByKey(temp, bytes, keys, unique_out, values, aggregates_out, num_runs_out, op, n, "
      "stream)";
  static constexpr family library = family::cub;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ false, 0, false, false,
                                            /*preserves_order*/ true, true};

  template <class OpT, class K, class T, class NumItemsT>
  static cudaError_t call(void* ws, std::size_t& bytes, const K* keys, const T* values, NumItemsT n, K* unique_out,
                          T* values_out, std::int64_t* num_runs_out, OpT op, cudaStream_t stream) {
    return cub::DeviceReduce::ReduceByKey(ws, bytes, keys, unique_out, values, values_out, num_runs_out, op, n, stream);
  }

  template <class OpT, class K, class T>
  static cudaError_t dispatch(void* ws, std::size_t& bytes, const K* keys, const T* values, std::size_t n,
                              K* unique_out, T* values_out, std::int64_t* num_runs_out, OpT op, cudaStream_t stream) {
    if (n <= std::numeric_limits<std::uint32_t>::max()) {
      return call(ws, bytes, keys, values, static_cast<std::uint32_t>(n), unique_out, values_out, num_runs_out, op,
                  stream);
    }
    return call(ws, bytes, keys, values, static_cast<std::uint64_t>(n), unique_out, values_out, num_runs_out, op,
                stream);
  }

  template <class OpT, class K, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    std::size_t bytes = 0;
    CUDA_TRY(dispatch<OpT, K, T>(nullptr, bytes, nullptr, nullptr, n, nullptr, nullptr, nullptr, OpT{}, nullptr));
    return bytes;
  }

  template <class OpT, class K, class T>
  static void run(const K* keys, const T* values, std::size_t n, K* unique_keys_out, T* values_out,
                  std::int64_t* num_runs_out, void* workspace, std::size_t bytes, OpT op, cudaStream_t stream) {
    CUDA_TRY(dispatch<OpT, K, T>(workspace, bytes, keys, values, n, unique_keys_out, values_out, num_runs_out, op,
                                 stream));
  }
};

/// thrust::reduce_by_key on the stream; it allocates its own temporary storage and synchronizes to return the
/// end of its outputs, from which the number of runs is copied to *num_runs_out.
struct thrust_reduce_by_key {
  static constexpr const char* name = "thrust::reduce_by_key";
  static constexpr const char* summary =
      "thrust::reduce_by_key(thrust::cuda::par.on(stream), keys, keys + n, values, unique_out, values_out, "
      "thrust::equal_to<K>(), op)";
  static constexpr family library = family::thrust;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ false, 0, false, false,
                                            /*preserves_order*/ true, true, /*synchronizes_host*/ true};

  template <class OpT, class K, class T>
  static std::size_t workspace_bytes(std::size_t) {
    return 0;
  }

  template <class OpT, class K, class T>
  static void run(const K* keys, const T* values, std::size_t n, K* unique_keys_out, T* values_out,
                  std::int64_t* num_runs_out, void*, std::size_t, OpT op, cudaStream_t stream) {
    const auto ends = thrust::reduce_by_key(thrust::cuda::par.on(stream), keys, keys + n, values, unique_keys_out,
                                            values_out, thrust::equal_to<K>(), op);
    const std::int64_t runs = ends.first - unique_keys_out;
    CUDA_TRY(cudaMemcpyAsync(num_runs_out, &runs, sizeof runs, cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));  // `runs` lives on this stack frame
  }
};

}  // namespace reducelab::baselines::segmented
