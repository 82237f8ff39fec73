// The library's own entry, reducelab::reduce (include/reducelab/reduce.cuh), wrapped with the backend
// interface of the variants (lab/variants/variant.hpp) so that check, compare, the tests and the report treat
// it like every other backend. Two rows, because a user calls two things:
//   reducelab::reduce         device result, stream-ordered, the workspace the library keeps for the stream
//   reducelab::reduce(host)   host result: one launch into pinned memory, one synchronization (vs thrust::reduce)
#pragma once

#include "comparisons/baselines.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/reduce.cuh"

#include <cstddef>

namespace reducelab::baselines {

struct library_reduce {
  static constexpr const char* name = "reducelab::reduce";
  static constexpr const char* summary =
      "the library entry: one launch, 16-byte loads, tiles in input order, the last block finishes (device result)";
  static constexpr family library = family::reducelab;
  static constexpr variant_traits traits = {0, /*needs_commutative*/ false, 0, false, false, /*preserves_order*/ true,
                                            /*deterministic*/ true};

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t) {
    return 0;  // the library keeps one per stream (detail/resources.hpp)
  }
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    namespace rd = reducelab::detail;
    const rd::device_properties dev = rd::current_device_properties();
    return rd::with_device_policy<T>(dev, [&](auto p) { return rd::combine_depth_for<decltype(p), OpT, T>(n, dev); });
  }
  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void*, std::size_t, OpT op, cudaStream_t stream) {
    reducelab::reduce(in, n, out, op, stream);
  }
};

struct library_reduce_host {
  static constexpr const char* name = "reducelab::reduce(host)";
  static constexpr const char* summary =
      "the library's host-result call: T reducelab::reduce(in, n, op) - cached workspace, pinned result, one sync";
  static constexpr family library = family::reducelab;
  static constexpr variant_traits traits = {0, false, 0, false, false, /*preserves_order*/ true, true,
                                            /*synchronizes_host*/ true};

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t) {
    return 0;
  }
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    return library_reduce::combine_depth<OpT, T>(n);
  }
  template <class OpT, class T>
  static T call(const T* in, std::size_t n, OpT op, cudaStream_t stream) {
    return reducelab::reduce(in, n, op, stream);
  }
  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void*, std::size_t, OpT op, cudaStream_t stream) {
    const T result = call(in, n, op, stream);
    CUDA_TRY(cudaMemcpyAsync(out, &result, sizeof(T), cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
  }
};

}  // namespace reducelab::baselines
