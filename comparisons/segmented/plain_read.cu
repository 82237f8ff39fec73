// The plain-read yardstick of the segmented compare (plain_read.hpp).
#include "comparisons/segmented/plain_read.hpp"

#include "functors/plus.cuh"
#include "reducelab/core/error.hpp"
#include "reducelab/reduce.cuh"

#include <cstdint>

namespace reducelab::segmented::tool {

namespace {

constexpr unsigned char pattern = 0x5a;  // every byte of the scratch: never all zeros

std::size_t words_for(std::size_t bytes) {
  return bytes / sizeof(std::uint32_t) > 0 ? bytes / sizeof(std::uint32_t) : 1;
}

struct scratch {
  std::uint32_t* words = nullptr;
  std::size_t count = 0;
  std::uint32_t* out = nullptr;
};

/// The scratch, holding at least `words` words; null words when the device cannot hold that many (the caller goes
/// without a plain read rather than failing the whole compare).
scratch& scratch_for(std::size_t words) {
  static scratch s;
  if (!s.out) CUDA_TRY(cudaMalloc(&s.out, sizeof(std::uint32_t)));
  if (s.count < words) {
    if (s.words) CUDA_TRY(cudaFree(s.words));
    s.words = nullptr;
    s.count = 0;
    const cudaError_t e = cudaMalloc(&s.words, words * sizeof(std::uint32_t));
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it, so that later calls do not see it
      s.words = nullptr;
      return s;
    }
    CUDA_TRY(e);
    CUDA_TRY(cudaMemset(s.words, pattern, words * sizeof(std::uint32_t)));
    // cudaMemset runs on the legacy default stream and returns before it finishes, and the reads run on the caller's
    // stream, which may be non-blocking (the engine's and the tests' are): without this wait a read could overtake
    // the fill. The GPU test caught it at stop 68 (H100, ctest 8 at once): a fresh 1 MiB scratch summed 51264 over
    // the pattern's sum.
    CUDA_TRY(cudaDeviceSynchronize());
    s.count = words;
  }
  return s;
}

}  // namespace

std::optional<timing::timed_work> plain_read_work(std::size_t bytes) {
  const std::size_t words = words_for(bytes);
  const scratch& s = scratch_for(words);
  if (!s.words) return std::nullopt;
  const std::uint32_t* in = s.words;
  std::uint32_t* out = s.out;
  return timing::timed_work{plain_read_name, false, [in, words, out](cudaStream_t stream) {
                              reducelab::reduce(in, words, out, functors::plus{}, stream);
                            }};
}

std::uint32_t last_plain_read_sum() {
  const scratch& s = scratch_for(0);
  std::uint32_t sum = 0;
  CUDA_TRY(cudaDeviceSynchronize());
  CUDA_TRY(cudaMemcpy(&sum, s.out, sizeof(sum), cudaMemcpyDeviceToHost));
  return sum;
}

std::uint32_t expected_plain_read_sum(std::size_t bytes) {
  const std::uint32_t word = 0x01010101u * pattern;
  return static_cast<std::uint32_t>(words_for(bytes) * word);  // modulo 2^32, as the device's unsigned sum wraps
}

}  // namespace reducelab::segmented::tool
