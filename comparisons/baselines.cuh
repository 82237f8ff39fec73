// The library baselines, wrapped with the same interface as the custom variants (variants/variant.hpp) so
// every backend is validated and timed the same way, on the same device_vector.
//   thrust::reduce(first, last, init, op)   init = the identity. Each call allocates temporary storage,
//                                            synchronizes and copies the result back to the host.
//   cub::DeviceReduce::Reduce                temporary storage sized once by the caller (workspace_bytes)
// Both document that the operator must be commutative, so both refuse non-commutative functors.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/variants/variant.hpp"

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstddef>

namespace reducelab::baselines {

enum class family { thrust, cub };

struct thrust_reduce {
  static constexpr const char* name = "thrust::reduce";
  static constexpr const char* summary = "thrust::reduce(par.on(stream), first, last, identity, op)";
  static constexpr family library = family::thrust;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ true, 0, false, false, false, true};

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t) {
    return 0;
  }

  template <class OpT, class T>
  static T call(const T* in, std::size_t n, OpT op, cudaStream_t stream) {
    return thrust::reduce(thrust::cuda::par.on(stream), in, in + n, identity_of<OpT, T>(), op);
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void*, std::size_t, OpT op, cudaStream_t stream) {
    const T result = call(in, n, op, stream);
    CUDA_TRY(cudaMemcpyAsync(out, &result, sizeof(T), cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
  }
};

struct cub_reduce {
  static constexpr const char* name = "cub::DeviceReduce::Reduce";
  static constexpr const char* summary = "cub::DeviceReduce::Reduce(temp, bytes, in, out, n, op, identity, stream)";
  static constexpr family library = family::cub;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ true, 0, false, false, false, true};

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    std::size_t bytes = 0;
    CUDA_TRY(cub::DeviceReduce::Reduce(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                       static_cast<long long>(n), OpT{}, identity_of<OpT, T>()));
    return bytes;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t bytes, OpT op,
                  cudaStream_t stream) {
    CUDA_TRY(cub::DeviceReduce::Reduce(workspace, bytes, in, out, static_cast<long long>(n), op,
                                       identity_of<OpT, T>(), stream));
  }
};

}  // namespace reducelab::baselines
