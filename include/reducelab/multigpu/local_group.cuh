// Driving every local GPU from one thread: a communicator per device (ncclCommInitAll) and a reduction whose
// ranks' exchanges are issued inside one ncclGroupStart/End, as NCCL requires when one thread owns several ranks.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/multigpu/communicator.hpp"
#include "reducelab/multigpu/detail/rank_reduction.cuh"
#include "reducelab/multigpu/error.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace reducelab::multigpu {

/// One communicator per device of `devices`, rank r on devices[r], all owned by this process. Move-only;
/// destroying it destroys the communicators (those not aborted by a failed wait).
class local_group {
 public:
  /// @param devices distinct CUDA device ordinals, in rank order.
  explicit local_group(std::vector<int> devices) : devices_(std::move(devices)) {
    REDUCELAB_EXPECTS(!devices_.empty(), "reducelab::multigpu::local_group: the device list is empty");
    int count = 0;
    CUDA_TRY(cudaGetDeviceCount(&count));
    std::vector<int> sorted = devices_;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      REDUCELAB_EXPECTS(sorted[i] >= 0 && sorted[i] < count,
                        "reducelab::multigpu::local_group: device " + std::to_string(sorted[i]) + " does not exist (" +
                            std::to_string(count) + " devices)");
      REDUCELAB_EXPECTS(i == 0 || sorted[i] != sorted[i - 1], "reducelab::multigpu::local_group: device " +
                                                                  std::to_string(sorted[i]) + " is listed twice");
    }
    comms_.assign(devices_.size(), nullptr);
    // NCCL reads its connection mode once, at the process's first communicator, which may be this one
    // (communicator.hpp, connect_peers_at_creation, says why peers are connected at creation).
    detail::connect_peers_at_creation();
    REDUCELAB_NCCL_TRY(ncclCommInitAll(comms_.data(), static_cast<int>(devices_.size()), devices_.data()));
    try {
      for (int r = 0; r < size(); ++r) {
        const comm_info c = describe(comms_[r]);
        REDUCELAB_EXPECTS(c.size == size() && c.rank == r && c.device == devices_[r],
                          "reducelab::multigpu::local_group: communicator " + std::to_string(r) + " is rank " +
                              std::to_string(c.rank) + " of " + std::to_string(c.size) + " on device " +
                              std::to_string(c.device) + ", expected rank " + std::to_string(r) + " of " +
                              std::to_string(size()) + " on device " + std::to_string(devices_[r]));
      }
    } catch (...) {
      destroy();
      throw;
    }
  }
  local_group(local_group&& o) noexcept : devices_(std::move(o.devices_)), comms_(std::move(o.comms_)) {}
  local_group& operator=(local_group&& o) noexcept {
    if (this != &o) {
      destroy();
      devices_ = std::move(o.devices_);
      comms_ = std::move(o.comms_);
    }
    return *this;
  }
  ~local_group() { destroy(); }

  /// The number of ranks (devices).
  int size() const { return static_cast<int>(devices_.size()); }
  /// The device of rank r.
  int device(int r) const { return devices_.at(static_cast<std::size_t>(r)); }
  /// The communicator of rank r (null once aborted).
  ncclComm_t comm(int r) const { return comms_.at(static_cast<std::size_t>(r)); }

  /// f(r) for every rank in rank order, with rank r's device current (the previous one restored after).
  template <class F>
  void on_each_rank(F f) const {
    for (int r = 0; r < size(); ++r) {
      device_scope on(device(r));
      f(r);
    }
  }

  /// Wait for streams[r] (rank r's work) on every rank. On an asynchronous error or after `timeout`, abort every
  /// communicator of the group (they are unusable from then on) and throw nccl_error instead of hanging.
  void wait(const std::vector<cudaStream_t>& streams,
            std::chrono::milliseconds timeout = std::chrono::milliseconds(60000)) {
    REDUCELAB_EXPECTS(streams.size() == devices_.size(),
                      "reducelab::multigpu::local_group::wait: " + std::to_string(streams.size()) + " streams for " +
                          std::to_string(size()) + " ranks");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<bool> done(devices_.size(), false);
    try {
      for (std::size_t left = devices_.size(); left > 0;) {
        for (int r = 0; r < size(); ++r) {
          if (done[r]) continue;
          REDUCELAB_EXPECTS(comms_[r] != nullptr, "reducelab::multigpu::local_group::wait: rank " +
                                                      std::to_string(r) + "'s communicator was aborted");
          device_scope on(devices_[r]);
          if (detail::poll(comms_[r], streams[r])) {
            done[r] = true;
            --left;
          }
        }
        if (left == 0) break;
        if (std::chrono::steady_clock::now() > deadline) detail::throw_timeout(timeout);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    } catch (...) {
      abort();
      throw;
    }
  }

  /// Abort every communicator (ends NCCL's kernels; the group cannot be used afterwards).
  void abort() noexcept {
    for (ncclComm_t& c : comms_) {
      if (c != nullptr) ncclCommAbort(c);
      c = nullptr;
    }
  }

 private:
  void destroy() noexcept {
    for (ncclComm_t& c : comms_) {
      if (c != nullptr) ncclCommDestroy(c);
      c = nullptr;
    }
  }

  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
};

/// One rank's input and output for reduce(local_group&, ...): pointers and stream all on that rank's device.
template <class T>
struct shard {
  const T* in = nullptr;      ///< the rank's part of the input (device memory)
  std::size_t n = 0;          ///< its length (0 is allowed: it contributes the identity)
  T* out = nullptr;           ///< where the rank gets the whole result (device memory)
  cudaStream_t stream = nullptr;
};

/// Reduce shards[0] op shards[1] op ... across the group's GPUs, every rank getting the result in its
/// shards[r].out; stream-ordered on each rank's stream (wait with group.wait or the streams themselves).
/// Shards are combined in rank order, each in input order: non-commutative functors get the result of the
/// concatenated input. Restores the current device.
template <class T, class OpT>
void reduce(local_group& group, const std::vector<shard<T>>& shards, OpT op) {
  REDUCELAB_EXPECTS(shards.size() == static_cast<std::size_t>(group.size()),
                    "reducelab::multigpu::reduce: " + std::to_string(shards.size()) + " shards for a group of " +
                        std::to_string(group.size()) + " ranks");
  std::vector<std::unique_ptr<detail::rank_reduction<T, OpT>>> ranks;
  ranks.reserve(shards.size());
  group.on_each_rank([&](int r) {
    const shard<T>& s = shards[static_cast<std::size_t>(r)];
    ranks.push_back(std::make_unique<detail::rank_reduction<T, OpT>>(s.in, s.n, s.out, op, group.comm(r), s.stream));
  });
  detail::in_nccl_group([&] { group.on_each_rank([&](int r) { ranks[r]->exchange(); }); });
  group.on_each_rank([&](int r) { ranks[r]->finish(); });
}

}  // namespace reducelab::multigpu
