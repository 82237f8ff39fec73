// What the standalone segmented harnesses share (segmented_carries.cu, reduce_by_key_one_pass.cu,
// stream_walk_layouts.cu): a CUDA check that exits, the read that evicts the L2 between samples (and cold_timer, which
// times one call after it), and the device's theoretical peak as the reports compute it.
// They build with `-I include` alone, outside the project's build, so they time with their own loop rather than
// comparisons/timing (one_block_kernels.cu, which links the engine, shows the other way); cold_timer holds its stream
// with the engine's stream_hold, whose source those that time with it compile beside theirs.
#pragma once

// by path, so that the harnesses which never hold a stream still build with `-I include` alone
#include "../../comparisons/timing/stream_hold.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                                \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace harness_common {

/// Reads n vectors (after a memset of the same buffer, this leaves the L2 holding clean lines of it, not the input).
__global__ void touch(const int4* p, std::size_t n, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    acc ^= p[i].x;
  if (acc == 0x7fffffff) *sink = acc;
}

/// The by-key harnesses' plus (reduce_by_key_one_pass.cu, by_key_stream_proxy.cu): declared commutative, with an
/// identity, as the functor contract asks.
struct sum {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0};
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

/// The run lengths a by-key harness takes as its first argument ("1,8,-1"; "all" or none: `defaults`).
inline std::vector<long long> parse_lengths(int argc, char** argv, std::vector<long long> defaults) {
  if (argc <= 1 || std::string(argv[1]) == "all") return defaults;
  std::vector<long long> lengths;
  for (char* p = argv[1]; *p;) {
    lengths.push_back(std::strtoll(p, &p, 10));
    if (*p == ',') ++p;
  }
  return lengths;
}

/// Where each run of a by-key harness's input starts, n items in runs of `length` (uniform), or of random lengths 1..64
/// (-1) or 1..3000 (-2): the same sequence in every by-key harness. Run r holds key r * 7 (neighbours always differ).
inline std::vector<long long> run_starts(long long n, long long length) {
  std::vector<long long> starts;
  unsigned y = 777;
  for (long long i = 0; i < n;) {
    long long len = length > 0 ? length
                               : 1 + static_cast<long long>((y = y * 1664525u + 1013904223u) >> 8) %
                                         (length == -1 ? 64 : 3000);
    if (len > n - i) len = n - i;
    starts.push_back(i);
    i += len;
  }
  return starts;
}

/// "24,26,28" -> {24, 26, 28} (log2 sizes from a command line).
inline std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> values;
  for (std::string s = text; !s.empty();) {
    const auto comma = s.find(',');
    values.push_back(std::stoi(s.substr(0, comma)));
    s = comma == std::string::npos ? "" : s.substr(comma + 1);
  }
  return values;
}

/// One call timed cold: a memset of 256 MiB and a read of it (the L2 left holding clean lines of that buffer, not the
/// input), then CUDA events around the call on the timer's stream, which it waits for. A harness that times with it
/// links the timing engine's stream hold: add `-I . comparisons/timing/stream_hold.cu` to its build line.
class cold_timer {
 public:
  /// HARNESS_HOLD=1 times each call behind the timing engine's stream_hold, as the compares do (launch-free): the
  /// launches of a call of several kernels then reach the GPU at once, which changes how they overlap (stop 63: the
  /// one-pass kernel as a programmatic dependent). Without it the host's launches are in the interval.
  cold_timer() {
    CHECK_CUDA(cudaMalloc(&flush_, flush_vectors * 16));
    CHECK_CUDA(cudaMalloc(&sink_, 4));
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreate(&start_));
    CHECK_CUDA(cudaEventCreate(&stop_));
    const char* hold = std::getenv("HARNESS_HOLD");
    if (hold != nullptr && std::atoi(hold) != 0) hold_ = std::make_unique<reducelab::timing::stream_hold>();
  }
  bool holds() const { return hold_ != nullptr; }
  cudaStream_t stream() const { return stream_; }
  /// Microseconds of call(stream) after the flush; `round` varies the memset's byte from sample to sample.
  /// Held, a sample whose hold gave up before the host released it is taken again (up to 3 times, then kept with a
  /// warning), as the engine discards one.
  template <class CallF>
  float time_us(int round, CallF&& call) {
    for (int attempt = 1;; ++attempt) {
      flush(round);
      if (holds()) {
        CHECK_CUDA(cudaStreamSynchronize(stream_));
        hold_->hold(stream_);
      }
      CHECK_CUDA(cudaEventRecord(start_, stream_));
      call(stream_);
      CHECK_CUDA(cudaEventRecord(stop_, stream_));
      if (holds()) hold_->release();
      CHECK_CUDA(cudaStreamSynchronize(stream_));
      CHECK_CUDA(cudaGetLastError());
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
      if (!holds() || !hold_->timed_out()) return ms * 1000;
      if (attempt == 3) {
        std::fprintf(stderr, "warning: the stream hold gave up 3 times; this sample includes launches\n");
        return ms * 1000;
      }
    }
  }
  /// The flush alone (before a call timed some other way).
  void flush(int round) {
    CHECK_CUDA(cudaMemsetAsync(flush_, round, flush_vectors * 16, stream_));
    touch<<<528, 512, 0, stream_>>>(flush_, flush_vectors, sink_);
  }

 private:
  static constexpr std::size_t flush_vectors = (std::size_t{256} << 20) / 16;
  int4* flush_ = nullptr;
  int* sink_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::unique_ptr<reducelab::timing::stream_hold> hold_;  // HARNESS_HOLD
};

/// 2 x memory clock x bus width of device 0, in GB/s (the reports' peak).
inline double peak_gb_per_s() {
  int memory_khz = 0, bus_bits = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  return 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;
}

}  // namespace harness_common
