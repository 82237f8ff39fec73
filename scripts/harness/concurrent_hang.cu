// Reproduction of the hang of stop 30 (results/NVIDIA_H100_80GB_HBM3-lib/concurrent-processes-hang.txt): several
// processes share the GPU, each calling reducelab::reduce over and over; a watchdog thread reports a call that has
// not returned after 8 s, and what the blocks of that launch did, and exits 3. Built with the tests:
// LibraryWorkspace.FourProcessesOnNewStreamsAllFinish (tests/test_gpu_workspace_clear.cu) runs four `fresh` processes.
//
// Modes (one per process; run several processes at once):
//   lib      reducelab::reduce, device result then host result, random sizes 2^16..2^26 and offsets 0..3, over
//            maximum<int> and argmax<float, idx32>, all on one stream
//   fresh    as lib, but each iteration on a stream of its own, created and destroyed (as check_on_gpu does), so
//            every call allocates and clears a new workspace (detail/resources.hpp): the mode that hung
//   probe    the lib mode's launches, but of a copy of the multi-block kernel that records, in mapped host memory,
//            each block's start and end (epoch-stamped), so a hang says which blocks ran; the partials are read too
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -I include -I src -I . \
//                     scripts/harness/concurrent_hang.cu -o concurrent_hang
//   run:            ./concurrent_hang MODE SECONDS SEED   (prints "ok pid P N calls", or "HANG ..." and exits 3)
#include "functors/argmax.cuh"
#include "functors/maximum.cuh"
#include "reducelab/reduce.cuh"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>

using namespace reducelab;
using namespace reducelab::functors;

namespace {

constexpr unsigned max_blocks = 4096;
std::atomic<unsigned long long> g_calls{0};
char g_case[256];
std::atomic<unsigned long long> g_epoch{0};
std::atomic<unsigned> g_grid{0};
unsigned long long* g_started = nullptr;   // mapped host memory, max_blocks each
unsigned long long* g_finished = nullptr;
void* g_partials = nullptr;                // device workspace of the probe launches
std::size_t g_partial_bytes = 0;
std::size_t g_slot_bytes = 0;

template <class PolicyT, class OpT, class T>
__global__ void __launch_bounds__(PolicyT::block_threads)
    probe_kernel(const T* __restrict__ in, kernels::single_pass_plan plan, T* out, grid::tagged_partial<T>* partials,
                 unsigned long long epoch, OpT op, unsigned long long* started, unsigned long long* finished) {
  constexpr int threads = PolicyT::block_threads, vectors = PolicyT::vectors_per_thread;
  __shared__ alignas(16) unsigned char raw[kernels::raw_storage_bytes<threads, vectors, OpT, T>];
  if (threadIdx.x == 0) {
    *static_cast<volatile unsigned long long*>(started + blockIdx.x) = epoch;
    __threadfence_system();
  }
  kernels::reduce_and_finish<threads, vectors, false>(in, plan, out, partials, epoch, op, raw);
  if (threadIdx.x == 0) {
    __threadfence_system();
    *static_cast<volatile unsigned long long*>(finished + blockIdx.x) = epoch;
  }
}

template <class OpT, class T>
void probe_launch(const T* in, std::size_t n, T* out, cudaStream_t stream) {
  const detail::device_properties dev = detail::current_device_properties();
  detail::with_device_policy<T>(dev, [&](auto policy) {
    using P = decltype(policy);
    if (detail::takes_single_block<P, T>(n)) return;
    unsigned grid = 1;
    kernels::single_pass_plan plan =
        detail::make_plan<P::block_threads, P::vectors_per_thread>(in, n, detail::grid_cap<P, OpT, T>(dev), grid);
    const unsigned long long epoch = detail::next_epoch();
    g_epoch = epoch;
    g_grid = grid;
    g_slot_bytes = sizeof(grid::tagged_partial<T>);
    if (grid > max_blocks || grid * sizeof(grid::tagged_partial<T>) > g_partial_bytes) std::abort();
    probe_kernel<P, OpT, T><<<grid, P::block_threads, 0, stream>>>(
        in, plan, out, static_cast<grid::tagged_partial<T>*>(g_partials), epoch, OpT{}, g_started, g_finished);
  });
}

void report_hang() {
  std::printf("HANG pid %d after %llu calls: %s\n", getpid(), g_calls.load(), g_case);
  const unsigned grid = g_grid.load();
  const unsigned long long epoch = g_epoch.load();
  if (g_started != nullptr && grid > 0) {
    unsigned started = 0, finished = 0;
    std::string not_started, not_finished;
    for (unsigned b = 0; b < grid; ++b) {
      const unsigned long long s = static_cast<volatile unsigned long long*>(g_started)[b];
      const unsigned long long f = static_cast<volatile unsigned long long*>(g_finished)[b];
      if (s == epoch) ++started;
      else if (not_started.size() < 120) not_started += " " + std::to_string(b);
      if (f == epoch) ++finished;
      else if (not_finished.size() < 120) not_finished += " " + std::to_string(b);
    }
    std::printf("  grid %u epoch %llx: started %u (not:%s) finished %u (not:%s)\n", grid, epoch, started,
                not_started.c_str(), finished, not_finished.c_str());
    std::fflush(stdout);
    // The partials, read on a stream of their own while the kernel still runs.
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    std::vector<unsigned char> host(grid * g_slot_bytes);
    cudaMemcpyAsync(host.data(), g_partials, host.size(), cudaMemcpyDeviceToHost, s);
    const auto t0 = std::chrono::steady_clock::now();
    while (cudaStreamQuery(s) == cudaErrorNotReady && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (cudaStreamQuery(s) != cudaSuccess) {
      std::printf("  partials: the copy did not finish\n");
    } else {
      unsigned tagged = 0;
      std::string untagged;
      for (unsigned b = 0; b + 1 < grid; ++b) {
        unsigned long long tag;
        std::memcpy(&tag, host.data() + b * g_slot_bytes, 8);
        if (tag == epoch) ++tagged;
        else if (untagged.size() < 160) untagged += " " + std::to_string(b) + ":" + std::to_string(tag & 0xffff);
      }
      std::printf("  partials of blocks 0..%u carrying the epoch: %u (not:%s)\n", grid - 2, tagged, untagged.c_str());
    }
  }
  std::fflush(stdout);
  _exit(3);
}

template <class T>
__global__ void fill(T* p, std::size_t n);
template <>
__global__ void fill<int>(int* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = static_cast<int>((i * 2654435761u) % 1000003u);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::printf("usage: %s lib|fresh|probe SECONDS SEED\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const double seconds = std::atof(argv[2]);
  std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
  const std::size_t max_n = (std::size_t{1} << 26) + 64;
  int* ints = nullptr;
  value_index<float, unsigned>* pairs = nullptr;
  cudaMalloc(&ints, max_n * sizeof(int));
  cudaMalloc(&pairs, (max_n / 4) * sizeof(*pairs));
  fill<int><<<1024, 256>>>(ints, max_n);
  cudaMemset(pairs, 0, (max_n / 4) * sizeof(*pairs));
  int* out_int = nullptr;
  value_index<float, unsigned>* out_pair = nullptr;
  cudaMalloc(&out_int, 64);
  cudaMalloc(&out_pair, 64);
  if (mode == "probe") {
    cudaHostAlloc(&g_started, max_blocks * 8, cudaHostAllocMapped);
    cudaHostAlloc(&g_finished, max_blocks * 8, cudaHostAllocMapped);
    std::memset(g_started, 0, max_blocks * 8);
    std::memset(g_finished, 0, max_blocks * 8);
    g_partial_bytes = max_blocks * 64;
    cudaMalloc(&g_partials, g_partial_bytes);
    cudaMemset(g_partials, 0, g_partial_bytes);
  }
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;

  std::thread([] {
    unsigned long long last = ~0ull;
    auto since = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const unsigned long long now_calls = g_calls.load();
      if (now_calls != last) {
        last = now_calls;
        since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - since > std::chrono::seconds(8)) {
        report_hang();
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
    if (mode == "probe") {
      if (pair_case) probe_launch<argmax>(pairs + offset, n / 4 - offset, out_pair, stream);
      else probe_launch<maximum>(ints + offset, n - offset, out_int, stream);
      if (cudaStreamSynchronize(stream) != cudaSuccess) { std::printf("probe launch failed\n"); return 1; }
    } else {
      cudaStream_t s = stream;
      if (mode == "fresh") cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      if (pair_case) {
        reducelab::reduce(pairs + offset, n / 4 - offset, out_pair, argmax{}, s);
        (void)reducelab::reduce(pairs + offset, n / 4 - offset, argmax{}, s);
      } else {
        reducelab::reduce(ints + offset, n - offset, out_int, maximum{}, s);
        (void)reducelab::reduce(ints + offset, n - offset, maximum{}, s);
      }
      if (mode == "fresh") cudaStreamDestroy(s);
    }
    ++g_calls;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::printf("ok pid %d %llu calls\n", getpid(), g_calls.load());
  return 0;
}
