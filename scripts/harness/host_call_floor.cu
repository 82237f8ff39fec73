// Same-run harness for the host-result call's floor: where the time of T reducelab::reduce(in, n, op, stream) goes.
// Not part of the build or of the tests. Each probe is timed with the host clock around the call, after a
// cudaStreamSynchronize, 3000 rounds with every probe once per round, medians of rounds 100 on. `spin` or `yield`
// as the first argument sets the device's scheduling flag first. The figures quoted in include/reducelab/detail/
// resources.hpp (result_spin_limit) and in the H100 goal explanations came from a run at 7c6ce5f.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I . \
//                     scripts/harness/host_call_floor.cu -o host_call_floor
#include "reducelab/reduce.cuh"
#include <thrust/reduce.h>
#include <thrust/execution_policy.h>
#include <cuda/std/functional>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

struct plus_op {
  static constexpr bool commutative = true;
  template <class T> static constexpr T identity() { return T{}; }
  template <class T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

__global__ void empty_kernel() {}

__global__ void flag_kernel(volatile unsigned* flag, unsigned seq) {
  if (threadIdx.x == 0) { __threadfence_system(); *flag = seq; }
}

// One block, 256 threads, n <= 4096 ints: result then flag.
__global__ void block_reduce_flag(const int* in, int n, int* result, volatile unsigned* flag, unsigned seq) {
  __shared__ int s[8];
  int v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += in[i];
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? s[threadIdx.x] : 0;
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
    if (threadIdx.x == 0) {
      *(volatile int*)result = v;
      __threadfence_system();
      *flag = seq;
    }
  }
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) { std::printf("%s: %s\n", what, cudaGetErrorString(e)); std::exit(1); }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "spin") check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "flags");
  if (argc > 1 && std::string(argv[1]) == "yield") check(cudaSetDeviceFlags(cudaDeviceScheduleYield), "flags");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  const int N = 1 << 20;
  int* d;
  check(cudaMalloc(&d, N * sizeof(int)), "malloc");
  std::vector<int> h(N, 1);
  check(cudaMemcpy(d, h.data(), N * sizeof(int), cudaMemcpyHostToDevice), "copy");
  unsigned* flag;
  int* res;
  check(cudaHostAlloc(&flag, 256, cudaHostAllocMapped | cudaHostAllocPortable), "hostalloc");
  check(cudaHostAlloc(&res, 256, cudaHostAllocMapped | cudaHostAllocPortable), "hostalloc");
  *flag = 0;
  unsigned seq = 0;
  int sink = 0;

  auto spin_flag = [&](unsigned want) {
    while (reinterpret_cast<std::atomic<unsigned>*>(flag)->load(std::memory_order_acquire) != want) {}
  };
  auto query_loop = [&]() {
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady) {}
    check(e, "query");
  };

  struct probe { std::string name; std::function<void()> f; std::vector<double> t; };
  std::vector<probe> probes = {
      {"empty + StreamSynchronize", [&] { empty_kernel<<<1, 32, 0, s>>>(); check(cudaStreamSynchronize(s), "sync"); }},
      {"empty + StreamQuery loop", [&] { empty_kernel<<<1, 32, 0, s>>>(); query_loop(); }},
      {"flag kernel + spin on mapped flag", [&] { flag_kernel<<<1, 32, 0, s>>>(flag, ++seq); spin_flag(seq); }},
      {"block reduce 1024 + sync", [&] { block_reduce_flag<<<1, 256, 0, s>>>(d, 1024, res, flag, ++seq); check(cudaStreamSynchronize(s), "sync"); sink += *res; }},
      {"block reduce 1024 + spin", [&] { block_reduce_flag<<<1, 256, 0, s>>>(d, 1024, res, flag, ++seq); spin_flag(seq); sink += *res; }},
      {"block reduce 4096 + spin", [&] { block_reduce_flag<<<1, 256, 0, s>>>(d, 4096, res, flag, ++seq); spin_flag(seq); sink += *res; }},
      {"reducelab host 2^10", [&] { sink += reducelab::reduce(d, 1024, plus_op{}, s); }},
      {"reducelab host 2^12", [&] { sink += reducelab::reduce(d, 4096, plus_op{}, s); }},
      {"reducelab host 2^16", [&] { sink += reducelab::reduce(d, 1 << 16, plus_op{}, s); }},
      {"reducelab host 2^20", [&] { sink += reducelab::reduce(d, 1 << 20, plus_op{}, s); }},
      {"reducelab device 2^10 + sync", [&] { reducelab::reduce(d, 1024, res, plus_op{}, s); check(cudaStreamSynchronize(s), "sync"); sink += *res; }},
      {"thrust 2^10", [&] { sink += thrust::reduce(thrust::cuda::par.on(s), d, d + 1024, 0, plus_op{}); }},
      {"thrust 2^20", [&] { sink += thrust::reduce(thrust::cuda::par.on(s), d, d + (1 << 20), 0, plus_op{}); }},
      {"cudaGetDevice", [&] { int dev; check(cudaGetDevice(&dev), "gd"); sink += dev; }},
      {"cudaPointerGetAttributes", [&] { cudaPointerAttributes a; check(cudaPointerGetAttributes(&a, d), "pga"); sink += a.device; }},
      {"cudaStreamGetDevice", [&] { int dev; check(cudaStreamGetDevice(s, &dev), "sgd"); sink += dev; }},
      {"cudaStreamIsCapturing", [&] { cudaStreamCaptureStatus c; check(cudaStreamIsCapturing(s, &c), "cap"); sink += c; }},
      {"check_arguments", [&] { auto p = reducelab::detail::check_arguments(d, 1024, s); sink += p.ordinal; }},
      {"launch only (empty)", [&] { empty_kernel<<<1, 32, 0, s>>>(); }},
  };
  for (int round = 0; round < 3000; ++round) {
    for (auto& p : probes) {
      check(cudaStreamSynchronize(s), "sync");
      const auto t0 = std::chrono::steady_clock::now();
      p.f();
      const auto t1 = std::chrono::steady_clock::now();
      if (round >= 100) p.t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  check(cudaStreamSynchronize(s), "sync");
  std::printf("# mode %s; sink %d\n", argc > 1 ? argv[1] : "auto", sink);
  for (auto& p : probes) {
    std::sort(p.t.begin(), p.t.end());
    const auto q = [&](double f) { return p.t[static_cast<std::size_t>(f * (p.t.size() - 1))]; };
    std::printf("%-36s median %7.2f us  p10 %7.2f  p90 %7.2f\n", p.name.c_str(), q(0.5), q(0.1), q(0.9));
  }
}
