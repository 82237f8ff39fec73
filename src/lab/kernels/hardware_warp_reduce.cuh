// The grid-stride kernel with the warp tree done by hardware where a warp-wide reduce instruction exists (REDUX for
// 32-bit integer plus/min/max/and/or/xor, a vote for logical and/or; the table and why the result is the same bits
// are in reducelab/warp/warp_reduce_hardware.cuh, which reducelab::reduce uses too). Every other pair keeps the
// shuffle tree.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"
#include "reducelab/warp/warp_reduce_hardware.cuh"

#include <cstddef>

namespace reducelab::kernels {

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    hardware_warp_reduce(const T* __restrict__ in, std::size_t n, T* __restrict__ block_results, OpT op) {
  constexpr int warps = BlockThreads / warp::threads_per_warp;
  static_assert(BlockThreads % warp::threads_per_warp == 0 && warps <= 32,
                "hardware_warp_reduce: block size a multiple of 32, at most 1024");
  __shared__ T warp_results[warps];
  const int lane = threadIdx.x % warp::threads_per_warp;
  const int warp_id = threadIdx.x / warp::threads_per_warp;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  T acc = thread::fold_strided(identity_of<OpT, T>(), in, rank, n, threads, op);
  acc = warp::reduce(acc, op);
  if (lane == 0) warp_results[warp_id] = acc;
  __syncthreads();
  if (warp_id == 0) {
    acc = lane < warps ? warp_results[lane] : identity_of<OpT, T>();
    acc = warp::reduce(acc, op);
    if (lane == 0) block_results[blockIdx.x] = acc;
  }
}

}  // namespace reducelab::kernels
