// What a cold sample starts from. A memset over twice the L2 evicts the input, but leaves L2 full of dirty
// lines that the timed kernel then has to write back while it reads (on an H100, CUB Sum over 2^24 int32 takes
// 37.0 µs after a memset flush and 29.7 µs after memset + read). The clean flush adds a read pass over the same
// buffer, so L2 holds only clean lines of a buffer the timed work never touches.
#pragma once

#include "lab/core/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace reducelab::timing {

enum class flush_kind {
  clean,   // memset over 2 x L2, then a read pass over it: no dirty lines left (the default)
  memset,  // memset over 2 x L2 only: NVBench's convention, kept for comparison
};

const char* to_string(flush_kind k);
/// "clean" or "memset"; anything else is a usage_error naming it.
flush_kind parse_flush_kind(const std::string& text);

class l2_flush {
 public:
  /// A buffer of `factor` times the L2 size.
  explicit l2_flush(std::size_t l2_bytes, int factor = 2);
  /// Enqueue the flush on `stream`.
  void enqueue(flush_kind kind, cudaStream_t stream);
  std::size_t bytes() const { return buffer_.size(); }

 private:
  device_buffer buffer_;
  device_buffer sink_;  // the read pass's never-taken store target, which keeps its loads alive
  unsigned char fill_ = 0;
};

}  // namespace reducelab::timing
