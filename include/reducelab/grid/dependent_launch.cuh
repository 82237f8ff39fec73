// Programmatic dependent launch (sm_90 on): a kernel launched as the dependent of the one before it on the stream may
// start while that one still runs, and waits for it only where it must (segmented/kernels/short_segments.cuh says why
// the segmented one-array path uses it). Elsewhere the launch is stream ordered and the two device calls are no-ops.
#pragma once

#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

namespace reducelab::grid {

/// Lets the kernel launched after this one on the stream as a programmatic dependent start now: it starts once every
/// block of this grid has called this or left.
__device__ __forceinline__ void release_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Waits until the kernel before this one on the stream has finished and its writes are visible (a no-op where this
/// kernel was launched in stream order).
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// kernel<<<grid, block, 0, stream>>>(args...), as the programmatic dependent of the kernel before it on `stream`
/// where `as_dependent` holds and the device has them (compute capability `device_major` 9.0 on); in stream order
/// otherwise, so that a caller states when it wants the overlap and never which launch the device allows.
template <class... ParamsT, class... ArgsT>
void launch_as_dependent(void (*kernel)(ParamsT...), dim3 grid, dim3 block, cudaStream_t stream, bool as_dependent,
                         int device_major, ArgsT&&... args) {
  if (!as_dependent || device_major < 9) {
    kernel<<<grid, block, 0, stream>>>(static_cast<ArgsT&&>(args)...);
    CUDA_TRY_LAUNCH();
    return;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  cudaLaunchAttribute dependent[1];
  dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = dependent;
  config.numAttrs = 1;
  CUDA_TRY(cudaLaunchKernelEx(&config, kernel, static_cast<ArgsT&&>(args)...));
}

}  // namespace reducelab::grid
