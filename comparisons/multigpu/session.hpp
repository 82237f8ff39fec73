// What the case runners of `reducelab-multigpu compare` share: the ranks' streams with the fork and join that
// put a multi-GPU operation between the timing engine's events on GPU 0, device memory owned per device, and
// the runners themselves (scalar_cases.cu, all_reduce_cases.cu). Host code: the NCCL group is only declared.
//
// Timing across GPUs with the one engine (comparisons/timing/engine.hpp): the engine holds GPU 0's stream and
// records its events there; a timed run records an event on that stream (fork), makes every other rank's stream
// wait for it, enqueues the operation on every rank's stream (rank 0's being GPU 0's), then records an event on
// every other rank's stream and makes GPU 0's wait for them (join). The engine's interval on GPU 0 therefore
// brackets the whole operation on every GPU, and the hold covers every rank, since they all start behind the fork.
#pragma once

#include "comparisons/multigpu/goals.hpp"
#include "comparisons/multigpu/options.hpp"
#include "comparisons/timing/engine.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace reducelab::multigpu {
class local_group;
}

namespace reducelab::multigpu::tool {

/// Device memory on a given device, allocated and freed with that device current. Move-only.
class device_array {
 public:
  device_array() = default;
  device_array(int device, std::size_t bytes);
  ~device_array();
  device_array(device_array&& o) noexcept;
  device_array& operator=(device_array&& o) noexcept;
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  int device() const { return device_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  int device_ = 0;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Free memory on `device` now (cudaMemGetInfo).
std::size_t free_device_bytes(int device);

/// One stream per rank (rank 0's is GPU 0's, the engine's; the others are made here, non-blocking) and the
/// events of the fork and the join.
class rank_streams {
 public:
  rank_streams(std::vector<int> devices, cudaStream_t stream0);
  ~rank_streams();
  rank_streams(const rank_streams&) = delete;
  rank_streams& operator=(const rank_streams&) = delete;

  int size() const { return static_cast<int>(devices_.size()); }
  int device(int r) const { return devices_.at(static_cast<std::size_t>(r)); }
  cudaStream_t stream(int r) const { return streams_.at(static_cast<std::size_t>(r)); }
  const std::vector<cudaStream_t>& all() const { return streams_; }
  /// Every other rank's stream waits for what GPU 0's stream has enqueued so far.
  void fork();
  /// GPU 0's stream waits for what every other rank's stream has enqueued so far.
  void join();

 private:
  void destroy() noexcept;
  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
  cudaEvent_t forked_ = nullptr;
  std::vector<cudaEvent_t> joined_;  // [r] on device r; [0] unused
};

/// A local_group over `devices` (ncclCommInitAll), owned through the pointer.
std::shared_ptr<local_group> open_group(const std::vector<int>& devices);

/// What every case runner is handed.
struct session {
  const options& opts;
  local_group& group;
  rank_streams& ranks;
  timing::engine& engine;
  timing::measurement_plan plan;

  int size() const { return ranks.size(); }
  cudaStream_t stream0() const { return ranks.stream(0); }
  /// Wait for every rank's stream through the group (an NCCL error or a hang becomes nccl_error, not a hang).
  void wait() const;
  /// A timed item that forks from GPU 0's stream, runs `enqueue` (which enqueues on the ranks' streams) and joins
  /// back; under --clock host it returns only once every rank is done.
  timing::timed_work across_ranks(std::string name, std::function<void()> enqueue) const;
  /// A timed item on GPU 0's stream alone; under --clock host it returns only once that stream is done.
  timing::timed_work on_gpu0(std::string name, std::function<void(cudaStream_t)> enqueue) const;
  /// Summaries of the two items' samples into `o` (ours, baseline), and the ratio baseline / ours of their
  /// medians with its 95 % paired bootstrap interval.
  void record(case_outcome& o, const std::string& ours_name, const timing::work_samples& ours,
              const std::string& baseline_name, const timing::work_samples& baseline) const;
};

/// The runners, one per case of known_cases(): validate, then time (a failing case is not timed). A case that
/// does not fit in memory, or whose size its value type cannot index, comes back skipped with the reason.
case_outcome run_scalar_case(session& s, const case_name& c, std::size_t n);
case_outcome run_all_reduce_case(session& s, const case_name& c, std::size_t bytes);

}  // namespace reducelab::multigpu::tool
