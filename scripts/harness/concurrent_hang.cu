// Reproduction of the hang of stop 30 (results/NVIDIA_H100_80GB_HBM3-lib/concurrent-processes-hang.txt): several
// processes share the GPU, each calling reducelab::reduce over and over; a watchdog thread reports a call that has
// not returned after 8 s and exits 3. Built with the tests:
// LibraryWorkspace.FourProcessesOnNewStreamsAllFinish (tests/test_gpu_workspace_clear.cu) runs four `fresh` processes.
//
// Modes (one per process; run several processes at once):
//   lib      reducelab::reduce, device result then host result, random sizes 2^16..2^26 and offsets 0..3, over
//            maximum<int> and argmax<float, idx32>, all on one stream
//   fresh    as lib, but each iteration on a stream of its own, created and destroyed (as check_on_gpu does), so
//            every call allocates and clears a new workspace (detail/resources.hpp): the mode that hung
// (82320bb also had a `probe` mode, an instrumented copy of the multi-block kernel, dropped: the cause was found without
// it, and it tied a target the tests build to the kernel's internals.)
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/concurrent_hang.cu -o concurrent_hang
//   run:            ./concurrent_hang MODE SECONDS SEED   (prints "ok pid P N calls", or "HANG ..." and exits 3)
#include "functors/argmax.cuh"
#include "functors/maximum.cuh"
#include "reducelab/reduce.cuh"
#include "scripts/harness/harness_common.cuh"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>

using namespace reducelab;
using namespace reducelab::functors;

namespace {

std::atomic<unsigned long long> g_calls{0};
char g_case[256];

template <class T>
__global__ void fill(T* p, std::size_t n);
template <>
__global__ void fill<int>(int* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = static_cast<int>((i * 2654435761u) % 1000003u);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 4 ? argv[1] : "";
  if (mode != "lib" && mode != "fresh") {
    std::printf("usage: %s lib|fresh SECONDS SEED\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
  const std::size_t max_n = (std::size_t{1} << 26) + 64;
  int* ints = nullptr;
  value_index<float, unsigned>* pairs = nullptr;
  CHECK_CUDA(cudaMalloc(&ints, max_n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&pairs, (max_n / 4) * sizeof(*pairs)));
  fill<int><<<1024, 256>>>(ints, max_n);
  CHECK_CUDA(cudaMemset(pairs, 0, (max_n / 4) * sizeof(*pairs)));
  int* out_int = nullptr;
  value_index<float, unsigned>* out_pair = nullptr;
  CHECK_CUDA(cudaMalloc(&out_int, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&out_pair, sizeof(*out_pair)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::thread([] {  // the watchdog
    unsigned long long last = ~0ull;
    auto since = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const unsigned long long now_calls = g_calls.load();
      if (now_calls != last) {
        last = now_calls;
        since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - since > std::chrono::seconds(8)) {
        std::printf("HANG pid %d after %llu calls: %s\n", getpid(), now_calls, g_case);
        std::fflush(stdout);
        _exit(3);
      }
    }
  }).detach();

  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    const int log2n = 16 + static_cast<int>(rng() % 10);  // n < 2^26
    const std::size_t n = (std::size_t{1} << log2n) + rng() % (std::size_t{1} << log2n);
    const std::size_t offset = rng() % 4;
    const bool pair_case = rng() % 2 == 0;
    std::snprintf(g_case, sizeof g_case, "%s n=%zu offset=%zu", pair_case ? "argmax<float,idx32>" : "maximum<int>",
                  pair_case ? n / 4 : n, offset);
    cudaStream_t s = stream;
    if (mode == "fresh") CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (pair_case) {
      reducelab::reduce(pairs + offset, n / 4 - offset, out_pair, argmax{}, s);
      (void)reducelab::reduce(pairs + offset, n / 4 - offset, argmax{}, s);
    } else {
      reducelab::reduce(ints + offset, n - offset, out_int, maximum{}, s);
      (void)reducelab::reduce(ints + offset, n - offset, maximum{}, s);
    }
    if (mode == "fresh") CHECK_CUDA(cudaStreamDestroy(s));
    ++g_calls;
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("ok pid %d %llu calls\n", getpid(), g_calls.load());
  return 0;
}
