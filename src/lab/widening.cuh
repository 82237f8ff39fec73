// Widening sums: sum __half or __nv_bfloat16 inputs in a float (or double) accumulator, so the result has the
// accuracy of the accumulator, not of the 16-bit input. The registry runs one value type per case, so this is
// a public entry of its own, with the contract of reduce.cuh:
//
//   std::size_t bytes = reducelab::widening_workspace_bytes<__half, float>(n);   // allocate once, reuse
//   reducelab::reduce_widening<__half, float>(d_in, n, d_out, d_workspace, bytes, stream);
//
// Stream-ordered; n == 0 writes -0.0 (the identity of a floating-point sum); null pointers and a short
// workspace are refused with reducelab::usage_error before anything is launched; CUDA failures throw cuda_error.
// Error bound: |result - sum x| <= gamma(widening_combine_depth<InputT, AccT>(n)) * sum|x|, u of AccT.
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/kernels/widening_sum.cuh"
#include "lab/variants/variant.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>

namespace reducelab {

namespace detail::widening {

struct policy {
  static constexpr std::size_t vector_bytes = kernels::vector_bytes;  // LDG.128: 8 half items per load
  static constexpr int block_threads = 256;
  static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM
};

template <class InputT, class AccT>
constexpr void check_types() {
  static_assert(std::is_same_v<InputT, __half> || std::is_same_v<InputT, __nv_bfloat16>,
                "reduce_widening: the input is __half or __nv_bfloat16");
  static_assert(std::is_same_v<AccT, float> || std::is_same_v<AccT, double>,
                "reduce_widening: the accumulator is float or double");
}

/// Blocks for `items` items of `item_bytes` each: one vector per thread at least, at most a full device.
inline std::size_t grid_size(std::size_t items, std::size_t item_bytes) {
  const std::size_t full = static_cast<std::size_t>(current_device().sm_count) * policy::blocks_per_sm;
  const std::size_t vectors = ceil_div<std::size_t>(items, policy::vector_bytes / item_bytes);
  return std::max<std::size_t>(1, std::min(full, ceil_div<std::size_t>(vectors, policy::block_threads)));
}

/// One launch's depth: a head item, k items per vector the thread reads, a tail item, the 10-level block tree.
inline std::size_t pass_depth(std::size_t items, std::size_t item_bytes, std::size_t grid) {
  const std::size_t k = policy::vector_bytes / item_bytes;
  const std::size_t threads = grid * policy::block_threads;
  return ceil_div<std::size_t>(ceil_div<std::size_t>(items, k), threads) * k + 2 + 10;
}

}  // namespace detail::widening

/// Bytes of device workspace reduce_widening<InputT, AccT> needs for n inputs (0 when one launch does).
template <class InputT, class AccT>
std::size_t widening_workspace_bytes(std::size_t n) {
  detail::widening::check_types<InputT, AccT>();
  if (n == 0) return 0;
  const std::size_t grid = detail::widening::grid_size(n, sizeof(InputT));
  return grid > 1 ? grid * sizeof(AccT) : 0;
}

/// The most roundings any input goes through, for the floating-point bound gamma(depth) * sum|x| (u of AccT).
template <class InputT, class AccT>
std::size_t widening_combine_depth(std::size_t n) {
  detail::widening::check_types<InputT, AccT>();
  if (n == 0) return 0;
  const std::size_t grid = detail::widening::grid_size(n, sizeof(InputT));
  const std::size_t first = detail::widening::pass_depth(n, sizeof(InputT), grid);
  return grid > 1 ? first + detail::widening::pass_depth(grid, sizeof(AccT), 1) : first;
}

/// *out = the sum of in[0, n), each input converted to AccT and every addition done in AccT.
template <class InputT, class AccT>
void reduce_widening(const InputT* in, std::size_t n, AccT* out, void* ws, std::size_t ws_bytes,
                     cudaStream_t stream = nullptr) {
  detail::widening::check_types<InputT, AccT>();
  using detail::widening::policy;
  const std::string where = "reduce_widening: ";
  REDUCELAB_EXPECTS(out != nullptr, where + "output pointer is null");
  if (n == 0) {
    kernels::widening::write_value<<<1, 1, 0, stream>>>(out, -AccT(0));
    CUDA_TRY_LAUNCH();
    return;
  }
  REDUCELAB_EXPECTS(in != nullptr, where + "input pointer is null with n = " + std::to_string(n));
  const std::size_t needed = widening_workspace_bytes<InputT, AccT>(n);
  REDUCELAB_EXPECTS(needed == 0 || ws != nullptr, where + "workspace pointer is null");
  REDUCELAB_EXPECTS(ws_bytes >= needed, where + "workspace of " + std::to_string(ws_bytes) +
                                            " bytes is smaller than the " + std::to_string(needed) + " needed");

  constexpr int threads = policy::block_threads;
  const std::size_t grid = detail::widening::grid_size(n, sizeof(InputT));
  if (grid == 1) {
    kernels::widening_sum<threads><<<1, threads, 0, stream>>>(in, n, kernels::vector_head(in, n), out);
    CUDA_TRY_LAUNCH();
    return;
  }
  AccT* partials = static_cast<AccT*>(ws);
  kernels::widening_sum<threads>
      <<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, kernels::vector_head(in, n), partials);
  CUDA_TRY_LAUNCH();
  kernels::widening_sum<threads><<<1, threads, 0, stream>>>(static_cast<const AccT*>(partials), grid,
                                                            kernels::vector_head<AccT>(partials, grid), out);
  CUDA_TRY_LAUNCH();
}

}  // namespace reducelab
