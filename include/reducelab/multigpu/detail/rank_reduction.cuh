// One rank's share of a reduction across GPUs, in three steps, so that a thread driving several GPUs can put
// every rank's exchange inside one ncclGroupStart/End (a collective enqueued inside a group only reaches the
// stream at ncclGroupEnd: a kernel launched after it but before the group ends would run before it):
//   1. constructor: check, allocate, reduce the local shard with reducelab::reduce into partials[rank];
//   2. exchange(): in-place ncclAllGather of sizeof(T) bytes, so every rank holds all the partials;
//   3. finish(): one thread folds partials[0..nranks) in rank order into *out, then the workspace is freed.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/multigpu/communicator.hpp"
#include "reducelab/multigpu/error.hpp"
#include "reducelab/reduce.cuh"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <string>

namespace reducelab::multigpu::detail {

/// partials[0] op partials[1] op ... in rank order, so a non-commutative functor sees the shards in the order
/// of their ranks. One thread: there are as many partials as GPUs, and what matters is the order, not speed.
template <class T, class OpT>
__global__ void fold_in_rank_order(const T* partials, int nranks, T* out, OpT op) {
  T acc = partials[0];
  for (int r = 1; r < nranks; ++r) acc = op(acc, partials[r]);
  *out = acc;
}

template <class T, class OpT>
class rank_reduction {
 public:
  rank_reduction(const T* shard, std::size_t shard_n, T* out, OpT op, ncclComm_t comm, cudaStream_t stream)
      : out_(out), op_(op), comm_(comm), stream_(stream) {
    reducelab::detail::check_functor<T, OpT>();
    // Before anything is allocated or launched: the communicator must be this device's, the output on it.
    const comm_info c = expect_comm_on_current_device(comm);
    rank_ = c.rank;
    nranks_ = c.size;
    REDUCELAB_EXPECTS(out != nullptr, "reducelab::multigpu::reduce: output pointer is null");
    reducelab::detail::expect_on_device(out, c.device, "output pointer");
    reducelab::detail::expect_stream_on_device(stream, c.device);
    // Stream-ordered allocation: unlike cudaMalloc/cudaFree it does not synchronize the device, so the call
    // stays asynchronous like reducelab::reduce, and the free below is ordered after the fold that reads the
    // partials; the stream's pool keeps the memory for the next call. (reducelab::reduce's own per-stream
    // workspace cannot hold them: reduce may grow it, and it is busy while reduce runs.)
    CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&partials_), sizeof(T) * static_cast<std::size_t>(nranks_),
                             stream));
    try {
      reducelab::reduce(shard, shard_n, partials_ + rank_, op, stream);  // an empty shard gives the identity
    } catch (...) {
      cudaFreeAsync(partials_, stream);  // the destructor does not run when the constructor throws
      throw;
    }
  }

  rank_reduction(const rank_reduction&) = delete;
  rank_reduction& operator=(const rank_reduction&) = delete;

  /// Every rank's partial to every rank (in place: rank r's own is already at partials[r]).
  void exchange() {
    REDUCELAB_NCCL_TRY(ncclAllGather(partials_ + rank_, partials_, sizeof(T), ncclUint8, comm_, stream_));
  }

  /// Fold the partials into *out and give the workspace back, both in stream order.
  void finish() {
    fold_in_rank_order<T, OpT><<<1, 1, 0, stream_>>>(partials_, nranks_, out_, op_);
    CUDA_TRY_LAUNCH();
    T* p = partials_;
    partials_ = nullptr;
    CUDA_TRY(cudaFreeAsync(p, stream_));
  }

  /// On an error path the workspace is still given back in stream order, after whatever was enqueued.
  ~rank_reduction() {
    if (partials_ != nullptr) cudaFreeAsync(partials_, stream_);
  }

  int rank() const { return rank_; }

 private:
  T* out_;
  OpT op_;
  ncclComm_t comm_;
  cudaStream_t stream_;
  T* partials_ = nullptr;
  int rank_ = 0;
  int nranks_ = 0;
};

}  // namespace reducelab::multigpu::detail
