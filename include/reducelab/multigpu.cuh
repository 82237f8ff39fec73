// reducelab::multigpu — reduce a range split over several GPUs, over NCCL (optional part: include it only from
// a target that links NCCL, e.g. reducelab::multigpu in this build; reducelab::reducelab itself never needs NCCL).
//
//   #include <reducelab/multigpu.cuh>
//   // one rank per thread or process, each on its communicator's device:
//   reducelab::multigpu::reduce(d_shard, shard_n, d_out, op, comm, stream);   // every rank gets the result
//   reducelab::multigpu::wait(comm, stream);                                  // or synchronize the stream
//
//   // every local GPU from one thread:
//   reducelab::multigpu::local_group group({0, 1});
//   std::vector<reducelab::multigpu::shard<int>> shards = {{d_in0, n0, d_out0, s0}, {d_in1, n1, d_out1, s1}};
//   reducelab::multigpu::reduce(group, shards, op);
//   group.wait({s0, s1});
//
//   // elementwise, any functor, every rank gets out[i] = in_0[i] op in_1[i] op ...:
//   reducelab::multigpu::all_reduce(d_in, d_out, n, op, comm, stream);             (or over a local_group)
//   // faster where the GPUs reach each other's memory (NVLink): NCCL symmetric memory, made once per communicator
//   reducelab::multigpu::symmetric_workspace ws(comm);                              (or ws(group): collective)
//   reducelab::multigpu::all_reduce_options o;  o.workspace = &ws;
//   reducelab::multigpu::all_reduce(d_in, d_out, n, op, comm, stream, o);
//
//   // one process per GPU: rank 0 makes an id, the caller hands it to every rank (MPI, a file, a socket):
//   ncclUniqueId id = reducelab::multigpu::make_unique_id();                        // on rank 0
//   reducelab::multigpu::rank_communicator comm(id, nranks, rank);                 // on its device
//
// How: each rank reduces its shard with reducelab::reduce into a device scalar, an ncclAllGather of sizeof(T)
// bytes gives every rank all the partials, and one thread folds them in rank order. OpT and T are as for
// reducelab::reduce (associative, identity, trivially copyable; commutativity not needed): the result is that of
// the shards concatenated in rank order, bitwise the same on every run for the same shards and devices.
//
// Errors: everything reducelab::reduce refuses, plus a communicator of another device than the current one
// (usage_error naming both), thrown before anything is launched; a failed NCCL call throws reducelab::nccl_error
// with file, line and NCCL's message. wait() turns an asynchronous NCCL error or a timeout into nccl_error after
// aborting the communicator, instead of hanging.
#pragma once

#include "reducelab/multigpu/all_reduce.cuh"
#include "reducelab/multigpu/communicator.hpp"
#include "reducelab/multigpu/detail/rank_reduction.cuh"
#include "reducelab/multigpu/error.hpp"
#include "reducelab/multigpu/local_group.cuh"
#include "reducelab/multigpu/symmetric_all_reduce.cuh"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <type_traits>

namespace reducelab::multigpu {

/// This rank's part of a reduction across the ranks of `comm`: reduce [shard, shard + shard_n) and combine it
/// with the other ranks' in rank order into *out (device memory; every rank gets the result). Stream-ordered.
/// The current device must be the communicator's. A thread that owns several ranks must not call this once per
/// rank (each call's collective would wait for the others): use reduce(local_group&, ...) instead.
template <class T, class OpT, class = std::enable_if_t<!std::is_pointer_v<OpT>>>
void reduce(const T* shard, std::size_t shard_n, T* out, OpT op, ncclComm_t comm, cudaStream_t stream = nullptr) {
  detail::rank_reduction<T, OpT> rank(shard, shard_n, out, op, comm, stream);
  rank.exchange();
  rank.finish();
}

}  // namespace reducelab::multigpu
