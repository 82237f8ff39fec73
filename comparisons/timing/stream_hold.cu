#include "comparisons/timing/stream_hold.hpp"

#include "reducelab/core/error.hpp"

namespace reducelab::timing {

namespace {

__device__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread spins on the mapped release flag; `volatile` makes every iteration read host memory again.
__global__ void blocking_kernel(volatile int* flags, unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (flags[0] == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
  }
}

}  // namespace

stream_hold::stream_hold(std::chrono::microseconds timeout)
    : timeout_ns_(static_cast<unsigned long long>(timeout.count()) * 1000ull) {
  void* host = nullptr;
  CUDA_TRY(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  host_flags_ = static_cast<volatile int*>(host);
  host_flags_[0] = 1;
  host_flags_[1] = 0;
  const cudaError_t e = cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), host, 0);
  if (e != cudaSuccess) {
    cudaFreeHost(host);
    CUDA_TRY(e);
  }
}

stream_hold::~stream_hold() {
  if (host_flags_) {
    host_flags_[0] = 1;  // never leave a spinning kernel behind
    cudaFreeHost(const_cast<int*>(host_flags_));
  }
}

void stream_hold::hold(cudaStream_t stream) {
  host_flags_[0] = 0;
  host_flags_[1] = 0;
  blocking_kernel<<<1, 1, 0, stream>>>(device_flags_, timeout_ns_);
  CUDA_TRY_LAUNCH();
}

void stream_hold::release() { host_flags_[0] = 1; }

bool stream_hold::timed_out() const { return host_flags_[1] != 0; }

}  // namespace reducelab::timing
