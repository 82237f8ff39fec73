// Reduce-by-key step 5 - key_labelled_warp (kernels/key_labelled_warp.cuh): a warp reads 32 consecutive
// (key, value) pairs, __match_any_sync labels lanes with equal keys, each run reduces in lane order, and the run
// open at a tile's or a chunk's end is carried in order. Fixes over the segmented steps: the segments are not
// given as offsets but found from the keys (runs of equal keys), so no offsets pass is needed before reducing.
// Four launches (count heads, scan the counts, reduce, carry across chunks) and a workspace of
// (chunks + 1) 8-byte counts and `chunks` values, chunks = ceil(n / policy::chunk_items), taken with
// cudaMallocAsync/cudaFreeAsync on the stream. Keys: integral types only (static_assert says so); order kept
// for any functor. Limits: keys are read twice; one run over m chunks costs m/32 sequential carry steps.
#pragma once

#include "lab/segmented/kernels/key_labelled_warp.cuh"
#include "lab/segmented/kernels/segments.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace reducelab::segmented::variants {

namespace detail {
/// A stream-ordered allocation, freed on the stream on every path (an exception between two launches too).
class stream_allocation {
 public:
  stream_allocation(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    CUDA_TRY(cudaMallocAsync(&ptr_, bytes, stream));
  }
  stream_allocation(const stream_allocation&) = delete;
  stream_allocation& operator=(const stream_allocation&) = delete;
  ~stream_allocation() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
  }
  char* data() const noexcept { return static_cast<char*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};
}  // namespace detail

struct key_labelled_warp {
  static constexpr const char* name = "key_labelled_warp";
  static constexpr const char* summary =
      "reduce_by_key: __match_any_sync finds runs of equal keys in a warp; runs reduced and carried in input order";
  static constexpr variant_traits traits = {/*ladder_step*/ 5, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;  // 8 warps, one chunk each
    static constexpr int chunk_items = 512;    // 16 tiles of 32 pairs per warp: the carry across warps is rare
    static constexpr int scan_threads = 1024;  // the one block that scans the per-chunk head counts
  };

  template <class OpT, class K, class T>
  static void run(const K* keys, const T* values, std::size_t n, K* unique_keys_out, T* values_out,
                  std::int64_t* num_runs_out, OpT op, cudaStream_t stream) {
    static_assert(std::is_integral_v<K>, "key_labelled_warp: keys must be integral (they are matched bit for bit)");
    if (n == 0) {
      CUDA_TRY(cudaMemsetAsync(num_runs_out, 0, sizeof(std::int64_t), stream));
      return;
    }
    constexpr int threads = policy::block_threads;
    constexpr int chunk_items = policy::chunk_items;
    const std::size_t chunks = ceil_div<std::size_t>(n, chunk_items);
    const std::size_t blocks = ceil_div<std::size_t>(chunks, threads / 32);
    REDUCELAB_EXPECTS(blocks <= max_grid_x, "key_labelled_warp: too many pairs for one grid");
    const std::size_t counts_bytes = ceil_div<std::size_t>((chunks + 1) * sizeof(std::int64_t), 256) * 256;
    detail::stream_allocation workspace(counts_bytes + chunks * sizeof(T), stream);
    auto* run_offsets = reinterpret_cast<std::int64_t*>(workspace.data());
    T* leads = reinterpret_cast<T*>(workspace.data() + counts_bytes);
    const unsigned grid = static_cast<unsigned>(blocks);

    kernels::count_run_heads<threads, chunk_items><<<grid, threads, 0, stream>>>(keys, n, run_offsets);
    CUDA_TRY_LAUNCH();
    kernels::scan_run_counts<policy::scan_threads>
        <<<1, policy::scan_threads, 0, stream>>>(run_offsets, chunks, num_runs_out);
    CUDA_TRY_LAUNCH();
    kernels::reduce_runs<threads, chunk_items><<<grid, threads, 0, stream>>>(keys, values, n, run_offsets,
                                                                              unique_keys_out, values_out, leads, op);
    CUDA_TRY_LAUNCH();
    kernels::carry_runs<threads><<<grid, threads, 0, stream>>>(run_offsets, chunks, leads, values_out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::segmented::variants
