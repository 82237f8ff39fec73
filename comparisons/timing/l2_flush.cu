#include "comparisons/timing/l2_flush.hpp"

#include "reducelab/core/error.hpp"

namespace reducelab::timing {

namespace {

// Reads every 16-byte word once. After the memset every word is four equal 32-bit values, so acc stays 0 and
// the store never happens; the compiler cannot know that, so it keeps every load.
__global__ void read_pass(const uint4* data, std::size_t words, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5A5A5A5Au) *sink = acc;
}

}  // namespace

const char* to_string(flush_kind k) { return k == flush_kind::clean ? "clean" : "memset"; }

flush_kind parse_flush_kind(const std::string& text) {
  if (text == "clean") return flush_kind::clean;
  if (text == "memset") return flush_kind::memset;
  throw usage_error("--flush: '" + text + "' is not one of clean, memset");
}

l2_flush::l2_flush(std::size_t l2_bytes, int factor)
    : buffer_((l2_bytes * static_cast<std::size_t>(factor) + 15) / 16 * 16), sink_(sizeof(unsigned)) {}

void l2_flush::enqueue(flush_kind kind, cudaStream_t stream) {
  // A new byte each time, so no layer can treat the write as redundant.
  ++fill_;
  CUDA_TRY(cudaMemsetAsync(buffer_.data(), fill_, buffer_.size(), stream));
  if (kind == flush_kind::clean) {
    const std::size_t words = buffer_.size() / sizeof(uint4);
    read_pass<<<1024, 256, 0, stream>>>(static_cast<const uint4*>(buffer_.data()), words,
                                        static_cast<unsigned*>(sink_.data()));
    CUDA_TRY_LAUNCH();
  }
}

}  // namespace reducelab::timing
