// The library baselines, wrapped with the same interface as the custom variants (variants/variant.hpp) so
// every backend is validated and timed the same way, on the same device_vector.
//   thrust::reduce(first, last, init, op)   init = the identity. Each call allocates temporary storage,
//                                            synchronizes and copies the result back to the host.
//   cub::DeviceReduce::Reduce                temporary storage sized once by the caller (workspace_bytes)
// Both document that the operator must be commutative, so both refuse non-commutative functors.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "lab/variants/variant.hpp"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>

#include <type_traits>

#include <cstddef>

namespace reducelab::baselines {

enum class family { thrust, cub, reducelab };  // reducelab: the library's own entry (library_backends.cuh)

struct thrust_reduce {
  static constexpr const char* name = "thrust::reduce";
  static constexpr const char* summary = "thrust::reduce(par.on(stream), first, last, identity, op)";
  static constexpr family library = family::thrust;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ true, 0, false, false, false, true,
                                            /*synchronizes_host*/ true};

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

/// CUB's operator-specific entries with CCCL's own operators: DeviceReduce::Sum (cuda::std::plus), Max
/// (cuda::maximum), Min (cuda::minimum). CUB can take operator-specific paths only for operators it knows,
/// so this row is shown beside cub::DeviceReduce::Reduce with the user's functor. Note their initial values:
/// Sum starts from T{} (+0.0, so a sum of only -0.0 comes out +0.0) and Max/Min from the type's
/// lowest()/max() rather than -inf/+inf.
struct cub_builtin_reduce {
  static constexpr const char* name = "cub::DeviceReduce::Sum|Max|Min";
  static constexpr const char* summary = "CUB's own Sum/Max/Min with CCCL's operator (built-in plus/maximum/minimum)";
  static constexpr family library = family::cub;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ true, 0, false, false, false, true};

  template <class OpT, class T>
  static constexpr const char* extra_refusal() {
    constexpr builtin_op k = builtin_kind_v<OpT>;
    if (k != builtin_op::plus && k != builtin_op::maximum && k != builtin_op::minimum)
      return "CUB has an own entry only for plus (Sum), maximum (Max) and minimum (Min)";
    if (!std::is_arithmetic_v<T> || std::is_same_v<T, bool>) return "CUB's Sum/Max/Min serve arithmetic types";
    return nullptr;
  }

  template <class OpT, class T>
  static cudaError_t dispatch(void* ws, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t stream) {
    const auto count = static_cast<long long>(n);
    if constexpr (builtin_kind_v<OpT> == builtin_op::plus) {
      return cub::DeviceReduce::Sum(ws, bytes, in, out, count, stream);
    } else if constexpr (builtin_kind_v<OpT> == builtin_op::maximum) {
      return cub::DeviceReduce::Max(ws, bytes, in, out, count, stream);
    } else {
      return cub::DeviceReduce::Min(ws, bytes, in, out, count, stream);
    }
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    std::size_t bytes = 0;
    CUDA_TRY(dispatch<OpT, T>(nullptr, bytes, nullptr, nullptr, n, nullptr));
    return bytes;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t bytes, OpT, cudaStream_t stream) {
    CUDA_TRY(dispatch<OpT, T>(workspace, bytes, in, out, n, stream));
  }
};

namespace detail {
/// The scan workaround is for operators that reduce cannot take; commutative ones are compared with reduce.
template <class OpT>
constexpr const char* scan_workaround_refusal() {
  return is_commutative_v<OpT> ? "used only for non-commutative functors (reduce serves this one)" : nullptr;
}
}  // namespace detail

/// The documented workaround for a non-commutative operator: thrust::inclusive_scan, keep the last element.
/// It writes n values to read one, so it moves about three times the bytes of a reduction.
struct thrust_scan_last {
  static constexpr const char* name = "thrust::inclusive_scan(last)";
  static constexpr const char* summary = "thrust::inclusive_scan into a scratch vector, last element copied out";
  static constexpr family library = family::thrust;
  // Stream-ordered: with par_nosync the call returns while the scan is still queued (an H100 run that timed it
  // with the host clock saw 267 µs for a 2^28 scan of 8-byte values that takes 3.7 ms on the GPU), so it is
  // timed with events like CUB's scan; the engine refuses a host-synchronous claim that leaves work queued.
  static constexpr variant_traits traits = {0, false, 0, false, false, /*preserves_order*/ true, true};

  template <class OpT, class T>
  static constexpr const char* extra_refusal() {
    return detail::scan_workaround_refusal<OpT>();
  }
  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    return n * sizeof(T);
  }
  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    T* scanned = static_cast<T*>(workspace);
    thrust::inclusive_scan(thrust::cuda::par_nosync.on(stream), in, in + n, scanned, op);
    CUDA_TRY(cudaMemcpyAsync(out, scanned + (n - 1), sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

/// The same workaround as a caller who wants the value on the host writes it: the scan with thrust::cuda::par
/// (which synchronizes), then the last element copied to the host. It is what reducelab::reduce(host) is compared
/// with for non-commutative functors: both timed with the host clock, both returning the value, as
/// thrust::reduce is for commutative ones. The scan's output buffer is kept between calls, as a caller would
/// keep it; Thrust allocates only its own temporary storage per call, as in thrust::reduce.
struct thrust_scan_last_host {
  static constexpr const char* name = "thrust::inclusive_scan(host)";
  static constexpr const char* summary =
      "thrust::inclusive_scan into a kept buffer, last element copied to the host (the host-result workaround)";
  static constexpr family library = family::thrust;
  static constexpr variant_traits traits = {0, false, 0, false, false, /*preserves_order*/ true, true,
                                            /*synchronizes_host*/ true};

  template <class OpT, class T>
  static constexpr const char* extra_refusal() {
    return detail::scan_workaround_refusal<OpT>();
  }
  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t) {
    return 0;
  }
  template <class OpT, class T>
  static T call(const T* in, std::size_t n, OpT op, cudaStream_t stream) {
    if (n == 0) return identity_of<OpT, T>();
    // One buffer per host thread and value type, grown and never shrunk; freed at exit (errors ignored then).
    struct kept_buffer {
      T* data = nullptr;
      std::size_t size = 0;
      ~kept_buffer() { cudaFree(data); }
    };
    thread_local kept_buffer scanned;
    if (scanned.size < n) {
      CUDA_TRY(cudaFree(scanned.data));
      scanned.data = nullptr;
      scanned.size = 0;
      CUDA_TRY(cudaMalloc(&scanned.data, n * sizeof(T)));
      scanned.size = n;
    }
    thrust::inclusive_scan(thrust::cuda::par.on(stream), in, in + n, scanned.data, op);
    T last;
    CUDA_TRY(cudaMemcpyAsync(&last, scanned.data + (n - 1), sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
    return last;
  }
  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void*, std::size_t, OpT op, cudaStream_t stream) {
    const T result = call(in, n, op, stream);
    CUDA_TRY(cudaMemcpyAsync(out, &result, sizeof(T), cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
  }
};

/// The same workaround with cub::DeviceScan::InclusiveScan (temporary storage sized once).
struct cub_scan_last {
  static constexpr const char* name = "cub::DeviceScan::InclusiveScan(last)";
  static constexpr const char* summary = "cub::DeviceScan::InclusiveScan into a scratch buffer, last element copied out";
  static constexpr family library = family::cub;
  static constexpr variant_traits traits = {0, false, 0, false, false, /*preserves_order*/ true, true};

  template <class OpT, class T>
  static constexpr const char* extra_refusal() {
    return detail::scan_workaround_refusal<OpT>();
  }
  template <class OpT, class T>
  static std::size_t scratch_bytes(std::size_t n) {
    return (n * sizeof(T) + 255) / 256 * 256;
  }
  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    std::size_t temp = 0;
    CUDA_TRY(cub::DeviceScan::InclusiveScan(nullptr, temp, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                            OpT{}, static_cast<long long>(n)));
    return scratch_bytes<OpT, T>(n) + temp;
  }
  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t bytes, OpT op, cudaStream_t stream) {
    T* scanned = static_cast<T*>(workspace);
    const std::size_t scratch = scratch_bytes<OpT, T>(n);
    std::size_t temp = bytes - scratch;
    CUDA_TRY(cub::DeviceScan::InclusiveScan(static_cast<char*>(workspace) + scratch, temp, in, scanned, op,
                                            static_cast<long long>(n), stream));
    CUDA_TRY(cudaMemcpyAsync(out, scanned + (n - 1), sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

}  // namespace reducelab::baselines
