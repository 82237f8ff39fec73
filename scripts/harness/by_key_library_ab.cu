// reducelab::reduce_by_key alone, for same-run A/Bs of its kernels across source trees (issue 13, stop 62): one
// binary per tree, each built against that tree's include/, run in turns by scripts/harness/ab_turns.py. Unlike
// by_key_stream_proxy.cu (plus only, beside the lead's proxies) it takes the functor and the value type at compile
// time, so the stream path's compare-select functors (maximum) are measured as the segmented compare's rows run them.
// Not part of the build or of the tests.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include -I scripts/harness -I . \
//                     scripts/harness/by_key_library_ab.cu comparisons/timing/stream_hold.cu -o by_key_ab
//                   -DHARNESS_VALUE=int|float|double (default int), -DHARNESS_MAX (maximum; default plus),
//                   -DHARNESS_AFFINE (affine_compose over affine32 maps instead: not commutative, exact)
//   run:            HARNESS_LOG2N=26 ./by_key_ab [LENGTHS] [SAMPLES]
//                   HARNESS_HOLD=1 (with CUDA_MODULE_LOADING=EAGER) times each call behind a held stream, as the
//                   compares do: the call's kernels then reach the GPU at once (harness_common.cuh's cold_timer)
// LENGTHS: uniform run lengths, or -1 (random lengths 1..64) and -2 (1..3000); int32 keys. Values are integers in
// [-500, 500), so maximum is exact for every type, and so are sums in int and double; a float sum stays exact only
// while a run's partial sums stay below 2^24 (runs up to 33 554 items); affine maps are exact. Every run is checked
// exactly against the host before timing, and a row that disagrees prints WRONG. Cold (harness_common's cold_timer);
// the median of SAMPLES after one unrecorded call. % of peak counts keys and values read and the runs'
// keys and values written, as the segmented compare does.
#include "harness_common.cuh"
#include "reducelab/segmented_reduce.cuh"

#include <cuda/functional>
#include <cuda/std/limits>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef HARNESS_VALUE
#define HARNESS_VALUE int
#endif

/// What functors/affine_compose.cuh does over affine32: maps x -> a*x + b modulo 2^32 composed in input order, exact
/// and not commutative, so the exact check of every run also checks the order its items were joined in.
struct alignas(8) affine32_map {
  unsigned a, b;
  __host__ __device__ bool operator!=(const affine32_map& o) const { return a != o.a || b != o.b; }
};
struct affine_op {
  static constexpr bool commutative = false;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{1, 0};
  }
  template <class T>
  __host__ __device__ T operator()(const T& f, const T& g) const {
    return T{g.a * f.a, g.a * f.b + g.b};
  }
};

#ifdef HARNESS_AFFINE
using value_t = affine32_map;
#else
using value_t = HARNESS_VALUE;
#endif

/// The harness's input values from a random word: integers in [-500, 500), or odd multipliers and any offsets.
template <class V = value_t>
V make_value(unsigned word) {
  if constexpr (cuda::std::is_same_v<V, affine32_map>) {
    return affine32_map{(word << 1) | 1u, word * 2654435761u};
  } else {
    return static_cast<V>(static_cast<int>(word >> 8) % 1000 - 500);
  }
}

/// What functors/maximum.cuh does, without the lab's functor header (the harness builds against include/ alone).
struct max_op {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    if constexpr (cuda::std::is_floating_point_v<T>) return -cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::lowest();
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return cuda::maximum<>{}(a, b);
  }
};

#if defined(HARNESS_AFFINE)
using op_t = affine_op;
constexpr const char* op_name = "affine_compose";
#elif defined(HARNESS_MAX)
using op_t = max_op;
constexpr const char* op_name = "maximum";
#else
using op_t = harness_common::sum;
constexpr const char* op_name = "plus";
#endif

int main(int argc, char** argv) {
  const char* log2n = std::getenv("HARNESS_LOG2N");
  const long long n = 1LL << (log2n ? std::atoi(log2n) : 24);
  const std::vector<long long> lengths = harness_common::parse_lengths(argc, argv, {1, 8, 32, 256, 4096, -1});
  const int samples = argc > 2 ? std::atoi(argv[2]) : 9;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double peak = harness_common::peak_gb_per_s();
  std::printf("%s, peak %.0f GB/s, n = 2^%d, %s over %zu-byte values, int32 keys, %d samples\n", prop.name, peak,
              log2n ? std::atoi(log2n) : 24, op_name, sizeof(value_t), samples);

  std::vector<value_t> hv(n);
  unsigned x = 12345;
  for (auto& v : hv) v = make_value(x = x * 1664525u + 1013904223u);
  int *keys, *keys_out;
  long long* num_runs;
  value_t *values, *values_out;
  CHECK_CUDA(cudaMalloc(&keys, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&keys_out, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&values, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&values_out, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&num_runs, sizeof(long long)));
  CHECK_CUDA(cudaMemcpy(values, hv.data(), n * sizeof(value_t), cudaMemcpyHostToDevice));
  harness_common::cold_timer timer;

  for (long long length : lengths) {
    const std::vector<long long> starts = harness_common::run_starts(n, length);
    const long long runs = static_cast<long long>(starts.size());
    std::vector<int> hk(n);
    std::vector<value_t> want(runs);
    for (long long r = 0; r < runs; ++r) {
      const long long end = r + 1 < runs ? starts[r + 1] : n;
      value_t acc = op_t::identity<value_t>();
      for (long long j = starts[r]; j < end; ++j) {
        hk[j] = static_cast<int>(r * 7);
        acc = op_t{}(acc, hv[j]);
      }
      want[r] = acc;
    }
    CHECK_CUDA(cudaMemcpy(keys, hk.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    auto call = [&](cudaStream_t s) {
      reducelab::reduce_by_key(keys, values, static_cast<std::size_t>(n), keys_out, values_out, num_runs, op_t{}, s);
    };
    std::vector<float> times;
    for (int k = 0; k <= samples; ++k) {
      const float us = timer.time_us(k, call);
      if (k > 0) times.push_back(us);
      if (k == 0) {
        long long got_runs = 0;
        std::vector<value_t> got(runs);
        std::vector<int> got_keys(runs);
        CHECK_CUDA(cudaMemcpy(&got_runs, num_runs, sizeof got_runs, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(got.data(), values_out, runs * sizeof(value_t), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(got_keys.data(), keys_out, runs * sizeof(int), cudaMemcpyDeviceToHost));
        long long bad = 0;
        for (long long r = 0; r < runs; ++r) bad += got[r] != want[r] || got_keys[r] != hk[starts[r]];
        if (bad || got_runs != runs)
          std::printf("  L=%lld WRONG (%lld runs differ, count %lld of %lld)\n", length, bad, got_runs, runs);
      }
    }
    std::sort(times.begin(), times.end());
    const float median = times[times.size() / 2];
    const double bytes = n * double(sizeof(int) + sizeof(value_t)) + runs * double(sizeof(int) + sizeof(value_t));
    std::printf("L=%-6lld S=%-9lld library %.1fus %.1f%%\n", length, runs, median,
                bytes / (median * 1e-6) / 1e9 / peak * 100);
  }
  return 0;
}
