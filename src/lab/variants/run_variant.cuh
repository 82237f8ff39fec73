// Run one ladder step by name: reduce [in, in + n) with OpT on the GPU, using the custom variant VariantT.
// (The library's own entry, which chooses for itself, is reducelab::reduce in include/reducelab/reduce.cuh.)
//
//   std::size_t bytes = reducelab::variant_workspace_bytes<V, Op, T>(n);   // allocate once, reuse
//   reducelab::run_variant<V>(d_in, n, d_out, d_workspace, bytes, Op{}, stream);
//
// Stream-ordered: nothing synchronizes the device; the result lands in *d_out when the stream gets there.
// n == 0 writes the identity. Null pointers, a short workspace and an inapplicable (variant, functor, type)
// are refused with reducelab::usage_error before anything is launched; CUDA failures throw cuda_error.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "lab/variants/variant.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace reducelab {

namespace kernels {
template <class OpT, class T>
__global__ void write_identity(T* out) {
  *out = identity_of<OpT, T>();
}
}  // namespace kernels

template <class VariantT, class OpT, class T>
std::size_t variant_workspace_bytes(std::size_t n) {
  static_assert(is_applicable_v<VariantT, OpT, T>,
                "reducelab: this variant cannot serve this functor and value type (see refusal_reason)");
  return n == 0 ? 0 : VariantT::template workspace_bytes<OpT, T>(n);
}

template <class VariantT, class OpT, class T>
void run_variant(const T* d_in, std::size_t n, T* d_out, void* d_workspace, std::size_t workspace_size, OpT op,
            cudaStream_t stream = nullptr) {
  static_assert(is_applicable_v<VariantT, OpT, T>,
                "reducelab: this variant cannot serve this functor and value type (see refusal_reason)");
  const std::string where = std::string("run_variant<") + VariantT::name + ">: ";
  REDUCELAB_EXPECTS(d_out != nullptr, where + "output pointer is null");
  if (n == 0) {
    kernels::write_identity<OpT><<<1, 1, 0, stream>>>(d_out);
    CUDA_TRY_LAUNCH();
    return;
  }
  REDUCELAB_EXPECTS(d_in != nullptr, where + "input pointer is null with n = " + std::to_string(n));
  const std::size_t needed = VariantT::template workspace_bytes<OpT, T>(n);
  REDUCELAB_EXPECTS(needed == 0 || d_workspace != nullptr, where + "workspace pointer is null");
  REDUCELAB_EXPECTS(workspace_size >= needed, where + "workspace of " + std::to_string(workspace_size) +
                                                  " bytes is smaller than the " + std::to_string(needed) + " needed");
  VariantT::template run<OpT, T>(d_in, n, d_out, d_workspace, workspace_size, op, stream);
}

}  // namespace reducelab
