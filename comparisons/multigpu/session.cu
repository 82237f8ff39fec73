#include "comparisons/multigpu/session.hpp"

#include "comparisons/timing/statistics.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/multigpu.cuh"

#include <stdexcept>
#include <utility>

namespace reducelab::multigpu::tool {

namespace {

struct policy {
  static constexpr double confidence = 0.95;
  static constexpr int bootstrap_resamples = 2000;
};

timed_result summary_of(const std::string& name, const timing::work_samples& w) {
  const timing::sample_summary sum = timing::summarize(w.us);
  timed_result t;
  t.name = name;
  t.clock = timing::to_string(w.clock);
  t.us = w.us;
  t.median_us = sum.median;
  t.p10_us = sum.p10;
  t.p90_us = sum.p90;
  return t;
}

}  // namespace

device_array::device_array(int device, std::size_t bytes) : device_(device), bytes_(bytes) {
  device_scope on(device_);
  const cudaError_t e = cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    ptr_ = nullptr;
    throw cuda_error(e, "cudaMalloc of " + std::to_string(bytes) + " bytes on GPU " + std::to_string(device) +
                            " failed: " + cudaGetErrorString(e));
  }
}

device_array::~device_array() { release(); }

device_array::device_array(device_array&& o) noexcept
    : device_(o.device_), ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

device_array& device_array::operator=(device_array&& o) noexcept {
  if (this != &o) {
    release();
    device_ = o.device_;
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void device_array::release() noexcept {
  if (ptr_ == nullptr) return;
  int previous = 0;
  if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device_) == cudaSuccess) {
    cudaFree(ptr_);
    cudaSetDevice(previous);
  }
  ptr_ = nullptr;
}

std::size_t free_device_bytes(int device) {
  device_scope on(device);
  std::size_t free = 0, total = 0;
  CUDA_TRY(cudaMemGetInfo(&free, &total));
  return free;
}

rank_streams::rank_streams(std::vector<int> devices, cudaStream_t stream0)
    : devices_(std::move(devices)), streams_(devices_.size(), nullptr), joined_(devices_.size(), nullptr) {
  REDUCELAB_EXPECTS(!devices_.empty(), "rank_streams: no devices");
  streams_[0] = stream0;
  try {
    {
      device_scope on(devices_[0]);
      CUDA_TRY(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
    }
    for (std::size_t r = 1; r < devices_.size(); ++r) {
      device_scope on(devices_[r]);
      CUDA_TRY(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking));
      CUDA_TRY(cudaEventCreateWithFlags(&joined_[r], cudaEventDisableTiming));
    }
  } catch (...) {
    destroy();
    throw;
  }
}

rank_streams::~rank_streams() { destroy(); }

void rank_streams::destroy() noexcept {
  for (std::size_t r = 1; r < devices_.size(); ++r) {
    if (streams_[r] != nullptr) cudaStreamDestroy(streams_[r]);
    if (joined_[r] != nullptr) cudaEventDestroy(joined_[r]);
    streams_[r] = nullptr;
    joined_[r] = nullptr;
  }
  if (forked_ != nullptr) cudaEventDestroy(forked_);
  forked_ = nullptr;
}

void rank_streams::fork() {
  if (devices_.size() == 1) return;
  CUDA_TRY(cudaEventRecord(forked_, streams_[0]));
  for (std::size_t r = 1; r < devices_.size(); ++r) CUDA_TRY(cudaStreamWaitEvent(streams_[r], forked_, 0));
}

void rank_streams::join() {
  for (std::size_t r = 1; r < devices_.size(); ++r) {
    CUDA_TRY(cudaEventRecord(joined_[r], streams_[r]));
    CUDA_TRY(cudaStreamWaitEvent(streams_[0], joined_[r], 0));
  }
}

std::shared_ptr<local_group> open_group(const std::vector<int>& devices) {
  return std::make_shared<local_group>(devices);
}

void session::wait() const { group.wait(ranks.all()); }

timing::timed_work session::across_ranks(std::string name, std::function<void()> enqueue) const {
  const bool host = opts.clock == clock_choice::host;
  const session* self = this;
  return {std::move(name), host, [self, host, enqueue = std::move(enqueue)](cudaStream_t stream) {
            if (stream != self->stream0())
              throw std::logic_error("reducelab-multigpu: the engine ran a multi-GPU item on another stream than GPU 0's");
            self->ranks.fork();
            enqueue();
            self->ranks.join();
            if (host) self->wait();
          }};
}

timing::timed_work session::on_gpu0(std::string name, std::function<void(cudaStream_t)> enqueue) const {
  const bool host = opts.clock == clock_choice::host;
  return {std::move(name), host, [host, enqueue = std::move(enqueue)](cudaStream_t stream) {
            enqueue(stream);
            if (host) CUDA_TRY(cudaStreamSynchronize(stream));
          }};
}

void session::record(case_outcome& o, const std::string& ours_name, const timing::work_samples& ours,
                     const std::string& baseline_name, const timing::work_samples& baseline) const {
  o.ours = summary_of(ours_name, ours);
  o.baseline = summary_of(baseline_name, baseline);
  o.ratio = o.baseline.median_us / o.ours.median_us;
  const timing::interval ci = timing::ratio_of_medians_interval(baseline.us, ours.us, policy::confidence,
                                                                policy::bootstrap_resamples, opts.seed);
  o.ratio_lo = ci.lo;
  o.ratio_hi = ci.hi;
}

}  // namespace reducelab::multigpu::tool
