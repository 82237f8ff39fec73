// What the order-goal harnesses share (few_blocks_finish.cu, one_block_run_loads.cu): maps for affine_compose with
// odd slopes (an even slope would make long compositions collapse towards 0) and as many doubles, small integers so
// that every order of a sum or a maximum gives the same bits; both on the host and on the device, and the host's
// in-order fold of the maps.
#pragma once

#include "functors/affine_compose.cuh"
#include "reducelab/core/traits.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace harness_rows {

template <class U>
struct order_inputs {
  using map_t = reducelab::functors::affine_map<U>;
  std::vector<map_t> maps;
  std::vector<double> doubles;
  map_t* device_maps = nullptr;
  double* device_doubles = nullptr;

  order_inputs(std::size_t n, std::uint64_t seed) : maps(n), doubles(n) {
    std::mt19937_64 rng(seed);
    for (auto& x : maps) x = map_t{static_cast<U>(rng() | 1u), static_cast<U>(rng())};
    for (auto& x : doubles) x = static_cast<double>(static_cast<int>(rng() % 2001) - 1000);
    cudaMalloc(&device_maps, n * sizeof(map_t));
    cudaMalloc(&device_doubles, n * sizeof(double));
    cudaMemcpy(device_maps, maps.data(), n * sizeof(map_t), cudaMemcpyHostToDevice);
    cudaMemcpy(device_doubles, doubles.data(), n * sizeof(double), cudaMemcpyHostToDevice);
  }
  order_inputs(const order_inputs&) = delete;
  order_inputs& operator=(const order_inputs&) = delete;
  ~order_inputs() {
    cudaFree(device_maps);
    cudaFree(device_doubles);
  }

  /// maps[0] then maps[1], ..., maps[n - 1], composed in input order on the host.
  map_t in_order(std::size_t n) const {
    const reducelab::functors::affine_compose op;
    map_t acc = reducelab::identity_of<reducelab::functors::affine_compose, map_t>();
    for (std::size_t i = 0; i < n; ++i) acc = op(acc, maps[i]);
    return acc;
  }
};

}  // namespace harness_rows
