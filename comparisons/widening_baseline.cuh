// The CUB baseline for widening sums (lab/widening.cuh), with the same accumulator type:
//   cub::DeviceReduce::TransformReduce(temp, bytes, in, out, n, cuda::std::plus<AccT>{}, widen, -0.0, stream)
// `widen` converts each __half / __nv_bfloat16 to AccT as it is loaded, so CUB adds in AccT exactly as ours does.
// Initial value -0.0 (the identity), not CUB's Sum default T{} = +0.0. CUB applies it once, after reducing
// the inputs (init + aggregate, see cub/device/dispatch/kernels/reduce.cuh), and an empty input gets it as is.
#pragma once

#include "reducelab/core/error.hpp"
#include "lab/kernels/widening_sum.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <cstddef>

namespace reducelab::baselines {

/// Unary transform for CUB: one input converted to the accumulator type.
template <class AccT>
struct widen_to {
  template <class InputT>
  __host__ __device__ AccT operator()(const InputT& x) const {
    return kernels::widening::widen<AccT>(x);
  }
};

/// Temporary storage cub::DeviceReduce::TransformReduce needs for n inputs (at least 1 byte).
template <class InputT, class AccT>
std::size_t widening_cub_workspace_bytes(std::size_t n) {
  std::size_t bytes = 0;
  CUDA_TRY(cub::DeviceReduce::TransformReduce(nullptr, bytes, static_cast<const InputT*>(nullptr),
                                              static_cast<AccT*>(nullptr), static_cast<long long>(n),
                                              cuda::std::plus<AccT>{}, widen_to<AccT>{}, -AccT(0)));
  return bytes;
}

/// *out = the sum of in[0, n) in AccT, by CUB. Stream-ordered, like reduce_widening.
template <class InputT, class AccT>
void widening_cub_reduce(const InputT* in, std::size_t n, AccT* out, void* ws, std::size_t ws_bytes,
                         cudaStream_t stream = nullptr) {
  // A null temp pointer would make CUB size its storage and return without writing *out.
  REDUCELAB_EXPECTS(ws != nullptr, "widening_cub_reduce: workspace pointer is null");
  REDUCELAB_EXPECTS(out != nullptr, "widening_cub_reduce: output pointer is null");
  REDUCELAB_EXPECTS(n == 0 || in != nullptr, "widening_cub_reduce: input pointer is null");
  CUDA_TRY(cub::DeviceReduce::TransformReduce(ws, ws_bytes, in, out, static_cast<long long>(n),
                                              cuda::std::plus<AccT>{}, widen_to<AccT>{}, -AccT(0), stream));
}

}  // namespace reducelab::baselines
