// Owning device allocation (RAII): freed on every path, so an exception between allocation and use leaks
// nothing. A failed allocation throws cuda_error naming the size.
#pragma once

#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace reducelab {

class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      throw cuda_error(e, "device_buffer: cudaMalloc of " + std::to_string(bytes) + " bytes failed: " +
                              cudaGetErrorString(e));
    }
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~device_buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  void* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Copies `bytes` from host memory to the device and waits until they are there. A plain cudaMemcpy from pageable
/// host memory may return once the bytes are staged, before the device holds them, and work on a non-blocking stream
/// (stream_owner's) is not ordered after it: set-up that uploads inputs and then launches on such a stream uses this.
inline void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  CUDA_TRY(cudaDeviceSynchronize());
}

/// A stream owned for the lifetime of the object.
class stream_owner {
 public:
  stream_owner() { CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  stream_owner(const stream_owner&) = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  ~stream_owner() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_{};
};

}  // namespace reducelab
