// What the multi-GPU calls check about a communicator before they use it, and how they wait on one without
// hanging: a rank that died or never joined leaves NCCL's kernels spinning forever, so waits poll the
// communicator's asynchronous error with a timeout and abort it instead.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/multigpu/error.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
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

namespace detail {
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
