// What the multi-GPU calls check about a communicator before they use it, and how they wait on one without
// hanging: a rank that died or never joined leaves NCCL's kernels spinning forever, so waits poll the
// communicator's asynchronous error with a timeout and abort it instead.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/multigpu/error.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace reducelab::multigpu {

/// A communicator's rank, its number of ranks and the device it was created on.
struct comm_info {
  int rank = 0;
  int size = 0;
  int device = -1;
};

/// Read a communicator's rank, size and device (a null communicator is refused).
inline comm_info describe(ncclComm_t comm) {
  REDUCELAB_EXPECTS(comm != nullptr, "reducelab::multigpu: the communicator is null (destroyed or aborted?)");
  comm_info c;
  REDUCELAB_NCCL_TRY(ncclCommUserRank(comm, &c.rank));
  REDUCELAB_NCCL_TRY(ncclCommCount(comm, &c.size));
  REDUCELAB_NCCL_TRY(ncclCommCuDevice(comm, &c.device));
  return c;
}

/// Refuse a communicator that does not have `expected` ranks.
inline void expect_comm_size(ncclComm_t comm, int expected) {
  const comm_info c = describe(comm);
  REDUCELAB_EXPECTS(c.size == expected, "reducelab::multigpu: the communicator has " + std::to_string(c.size) +
                                            " ranks, but " + std::to_string(expected) + " were expected");
}

/// Refuse a communicator created for another device than the current one: NCCL would launch its kernels on the
/// communicator's device while our kernels and pointers live on the current one. Returns the communicator's info.
inline comm_info expect_comm_on_current_device(ncclComm_t comm) {
  const comm_info c = describe(comm);
  int current = -1;
  CUDA_TRY(cudaGetDevice(&current));
  REDUCELAB_EXPECTS(c.device == current,
                    "reducelab::multigpu: the communicator (rank " + std::to_string(c.rank) + " of " +
                        std::to_string(c.size) + ") belongs to device " + std::to_string(c.device) +
                        ", but the current device is " + std::to_string(current) +
                        " (cudaSetDevice to the communicator's device first)");
  return c;
}

/// Makes `device` current for a scope and restores the previous one.
class device_scope {
 public:
  explicit device_scope(int device) {
    CUDA_TRY(cudaGetDevice(&previous_));
    if (device != previous_) CUDA_TRY(cudaSetDevice(device));
  }
  ~device_scope() { cudaSetDevice(previous_); }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = 0;
};

/// A fresh id for rank_communicator: made once (on rank 0), then given to every rank by the caller.
inline ncclUniqueId make_unique_id() {
  ncclUniqueId id;
  REDUCELAB_NCCL_TRY(ncclGetUniqueId(&id));
  return id;
}

namespace detail {
/// Ask NCCL to connect a communicator's peers while it is created, unless the environment says otherwise.
///
/// Why: since NCCL 2.22 connections are made lazily, inside the first collective that needs them, on the host and
/// with both peers taking part. A rank whose peer never calls then blocks inside that call (ncclAllGather,
/// ncclSend...) with no timeout, before anything reaches the stream that wait() polls. On two H200s with NCCL
/// 2.28.9, rank 0's first ncclAllGather stayed in "Channel NN/0 : 0[0] -> 1[1] via P2P" while rank 1 never called
/// (MultiGpuPerRank.AMissingRankIsReportedAfterTheTimeoutNotAHang, NCCL_DEBUG=INFO). Connected at creation, where
/// ncclCommInitRank already waits for every rank, a missing peer only leaves the kernel waiting on the device,
/// which wait()'s timeout and ncclCommAbort end. NCCL reads the variable once per process, at its first
/// communicator: a program that created one before keeps what it had.
inline void connect_peers_at_creation() {
  setenv("NCCL_RUNTIME_CONNECT", "0", /*overwrite*/ 0);
}
}  // namespace detail

/// This process's (or thread's) rank of a communicator of `nranks`, on the current device: the one-process-per-GPU
/// path, which scales past one machine. Every rank must construct it with the same id (ncclCommInitRank blocks
/// until all have joined). Destroys the communicator at the end of its life, unless a failed wait aborted it.
class rank_communicator {
 public:
  rank_communicator(const ncclUniqueId& id, int nranks, int rank) {
    REDUCELAB_EXPECTS(nranks >= 1, "reducelab::multigpu::rank_communicator: nranks = " + std::to_string(nranks));
    REDUCELAB_EXPECTS(rank >= 0 && rank < nranks, "reducelab::multigpu::rank_communicator: rank " +
                                                      std::to_string(rank) + " is not in [0, " +
                                                      std::to_string(nranks) + ")");
    detail::connect_peers_at_creation();
    REDUCELAB_NCCL_TRY(ncclCommInitRank(&comm_, nranks, id, rank));
  }
  rank_communicator(const rank_communicator&) = delete;
  rank_communicator& operator=(const rank_communicator&) = delete;
  ~rank_communicator() {
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }
  /// Abort the communicator (ends its NCCL work at once; needed instead of destruction when a peer is gone).
  void abort() noexcept {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  /// The communicator (null once a wait aborted it). Pass get_ref() to wait() so an abort is remembered here.
  ncclComm_t get() const { return comm_; }
  ncclComm_t& get_ref() { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

namespace detail {
/// Run f() between ncclGroupStart and ncclGroupEnd, ending the group on the error path too: a thread that owns
/// several ranks must issue their collectives in one group, and one rank's steps of several sends and receives
/// form one group each.
template <class F>
void in_nccl_group(F f) {
  REDUCELAB_NCCL_TRY(ncclGroupStart());
  try {
    f();
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  REDUCELAB_NCCL_TRY(ncclGroupEnd());
}

/// One poll: true when `stream` is done; throws nccl_error on the communicator's asynchronous error.
inline bool poll(ncclComm_t comm, cudaStream_t stream) {
  ncclResult_t async = ncclSuccess;
  REDUCELAB_NCCL_TRY(ncclCommGetAsyncError(comm, &async));
  if (async != ncclSuccess && async != ncclInProgress) {
    throw nccl_error(async, std::string("reducelab::multigpu: the communicator reported an asynchronous error: ") +
                                ncclGetErrorString(async));
  }
  const cudaError_t e = cudaStreamQuery(stream);
  if (e == cudaErrorNotReady) return false;
  CUDA_TRY(e);
  return true;
}

[[noreturn]] inline void throw_timeout(std::chrono::milliseconds timeout) {
  throw nccl_error(ncclInProgress, "reducelab::multigpu: the collective did not finish within " +
                                       std::to_string(timeout.count()) +
                                       " ms (a rank missing or stuck?); the communicator was aborted");
}
}  // namespace detail

/// Wait for `stream` (which holds work on `comm`) to finish, polling the communicator's asynchronous error.
/// On an error or after `timeout`, abort the communicator (ncclCommAbort; `comm` becomes null: it cannot be
/// used again, not even destroyed) and throw nccl_error instead of hanging.
inline void wait(ncclComm_t& comm, cudaStream_t stream,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(60000)) {
  REDUCELAB_EXPECTS(comm != nullptr, "reducelab::multigpu::wait: the communicator is null (destroyed or aborted?)");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  try {
    while (!detail::poll(comm, stream)) {
      if (std::chrono::steady_clock::now() > deadline) detail::throw_timeout(timeout);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  } catch (...) {
    ncclCommAbort(comm);  // ends NCCL's kernels on the device, so the stream can drain
    comm = nullptr;
    throw;
  }
}

}  // namespace reducelab::multigpu
