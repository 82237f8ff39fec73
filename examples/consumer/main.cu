// Uses an installed reducelab with a functor of its own: a summary (sum, count, max) of int values, merged
// pairwise. Checks each way of calling reducelab::reduce against a host fold and exits 1 on a mismatch.
#include <reducelab/reduce.cuh>

#include <thrust/device_vector.h>

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <vector>

// Trivially copyable, as reducelab requires of a value type.
struct summary {
  long long sum;
  long long count;
  int max;
};

// The functor contract: __host__ __device__ operator(), associative; an identity per value type as a static
// member template; `commutative` declared (leaving it out would also be correct, values are combined in order).
struct merge_summaries {
  static constexpr bool commutative = true;

  // The empty summary. A template because reducelab asks for identity<T>() with the value type as T.
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0, 0, INT_MIN};
  }

  __host__ __device__ summary operator()(const summary& a, const summary& b) const {
    return {a.sum + b.sum, a.count + b.count, a.max < b.max ? b.max : a.max};
  }
};

static bool same(const summary& a, const summary& b) {
  return a.sum == b.sum && a.count == b.count && a.max == b.max;
}

static bool report(const char* how, const summary& got, const summary& want) {
  const bool ok = same(got, want);
  std::printf("%-40s sum %lld  count %lld  max %d  %s\n", how, got.sum, got.count, got.max,
              ok ? "ok" : "MISMATCH");
  return ok;
}

#define CHECK_CUDA(call)                                                                               \
  do {                                                                                                 \
    const cudaError_t e = (call);                                                                      \
    if (e != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "consumer: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e), __FILE__, \
                   __LINE__);                                                                          \
      return 1;                                                                                        \
    }                                                                                                  \
  } while (0)

static int run() {
  // An awkward size: not a multiple of any block or tile.
  const std::size_t n = (std::size_t{1} << 20) + 7;
  std::mt19937 rng(20240601);  // fixed seed: the same input on every run
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<summary> host(n);
  for (summary& s : host) {
    const int x = dist(rng);
    s = {x, 1, x};
  }
  const merge_summaries op;
  const summary want = std::accumulate(host.begin(), host.end(), merge_summaries::identity<summary>(), op);

  thrust::device_vector<summary> values(host.begin(), host.end());
  const summary* d_in = thrust::raw_pointer_cast(values.data());
  bool ok = true;

  // 1. Host result.
  ok &= report("reduce(vec, op)", reducelab::reduce(values, op), want);

  // 2. Device result, stream-ordered: nothing waits until we copy it back.
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  thrust::device_vector<summary> d_out(1);
  reducelab::reduce(d_in, n, thrust::raw_pointer_cast(d_out.data()), op, stream);
  summary from_device;
  CHECK_CUDA(cudaMemcpyAsync(&from_device, thrust::raw_pointer_cast(d_out.data()), sizeof(summary),
                             cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  ok &= report("reduce(ptr, n, d_out, op, stream)", from_device, want);

  // 3. Host result later: enqueue now, get() waits.
  auto pending = reducelab::reduce_async(d_in, n, op, stream);
  ok &= report("reduce_async(ptr, n, op, stream).get()", pending.get(), want);

  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("%s\n", ok ? "consumer: all results match the host reference"
                         : "consumer: FAILED: a result differs from the host reference");
  return ok ? 0 : 1;
}

int main() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("consumer: no CUDA device found (%s); built and linked against reducelab, nothing to run "
                "(skipped: no GPU)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 0;
  }
  try {
    return run();
  } catch (const std::exception& ex) {  // reducelab::cuda_error, reducelab::usage_error, thrust's errors
    std::fprintf(stderr, "consumer: %s\n", ex.what());
    return 1;
  }
}
