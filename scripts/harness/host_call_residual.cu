// Same-run harness: how long the stream stays busy after T reducelab::reduce(in, n, op, stream) returns on the flag
// its kernel raises after the result, per functor and n (50 calls each after 10 warm-up calls, a 100 MiB memset
// before each). Not part of the build or of the tests. The figures in include/reducelab/detail/resources.hpp
// (result_spin_limit) and timing::engine::host_clock_allowance came from a run on the H100 at b97a408.
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/host_call_residual.cu -o host_call_residual
#include "functors/affine_compose.cuh"
#include "functors/plus.cuh"
#include "reducelab/reduce.cuh"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
using clk = std::chrono::steady_clock;
static void check(cudaError_t e) { if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); std::exit(1); } }
template <class T, class OpT>
void probe(const char* name, std::size_t n, cudaStream_t s, void* flushbuf) {
  T* d; check(cudaMalloc(&d, n * sizeof(T))); check(cudaMemset(d, 1, n * sizeof(T)));
  std::vector<double> call, resid, base;
  for (int i = 0; i < 60; ++i) {
    check(cudaMemsetAsync(flushbuf, i, 100 << 20, s));
    check(cudaStreamSynchronize(s));
    auto t0 = clk::now();
    T r = reducelab::reduce(d, n, OpT{}, s);
    auto t1 = clk::now();
    cudaError_t q = cudaStreamQuery(s);
    check(cudaStreamSynchronize(s));
    auto t2 = clk::now();
    (void)r;
    if (i >= 10) { call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count()); resid.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count()); }
    if (i == 59) std::printf("  last query after return: %s\n", cudaGetErrorName(q));
  }
  std::sort(call.begin(), call.end()); std::sort(resid.begin(), resid.end());
  std::printf("%-16s n=%-9zu call med %7.2f us | residual med %7.2f p10 %7.2f p90 %7.2f max %7.2f\n", name, n,
              call[call.size() / 2], resid[resid.size() / 2], resid[resid.size() / 10], resid[resid.size() * 9 / 10], resid.back());
  check(cudaFree(d));
}
int main() {
  cudaStream_t s; check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* f; check(cudaMalloc(&f, 100 << 20));
  using namespace reducelab::functors;
  for (std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 14, std::size_t{1} << 16, std::size_t{1} << 18, std::size_t{1} << 20}) {
    probe<reducelab::functors::affine32, affine_compose>("affine32", n, s, f);
    probe<double, plus>("plus/double", n, s, f);
    probe<int, plus>("plus/int", n, s, f);
  }
}
