// Launch-free timing: hold a stream with a spinning kernel while the host enqueues the start event, the work
// and the stop event, then release it. Without the hold, the start event fires as soon as the idle GPU reaches
// it and the host's launch latency lands inside the interval (an empty kernel reads 5.7-6.7 µs that way on an
// H100, 3.0 µs held). NVBench's `blocking_kernel` does the same; ours adds a bounded wait, so that a host that
// is descheduled (or a work item that synchronizes by mistake) costs one discarded sample, never a hang.
// Every kernel run behind a hold must have run once before: with CUDA's lazy module loading (the default), the
// first launch of a kernel may wait for the context, i.e. for the hold. The engine's warm-up runs see to that.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>

namespace reducelab::timing {

class stream_hold {
 public:
  /// `timeout`: how long the spinning kernel waits for release() before it gives up on its own.
  explicit stream_hold(std::chrono::microseconds timeout = std::chrono::milliseconds(200));
  ~stream_hold();
  stream_hold(const stream_hold&) = delete;
  stream_hold& operator=(const stream_hold&) = delete;

  /// Enqueue the spinning kernel on `stream`: work enqueued after it waits until release().
  void hold(cudaStream_t stream);
  /// Let the held stream go (host side: one store to mapped memory).
  void release();
  /// After the stream has passed the spinning kernel: true if it gave up waiting, i.e. the host released it
  /// too late and whatever was timed after it may have started before it was fully enqueued.
  bool timed_out() const;

 private:
  volatile int* host_flags_ = nullptr;  // [0] release, [1] gave up; pinned, mapped into the device's space
  int* device_flags_ = nullptr;
  unsigned long long timeout_ns_ = 0;
};

}  // namespace reducelab::timing
