// Policies for compute capability 9.x (H100, H200), written by `reducelab tune --write-header`. To retune, run it
// again on a Hopper GPU rather than editing the numbers: it rewrites this file whole.
// Provenance:
//   device   NVIDIA H100 80GB HBM3 (132 SMs, compute capability 9.0, peak 3352 GB/s)
//   date     2026-11-24T04:23:45Z
//   command  reducelab tune --out /root/out/tune.json --write-header /root/out/sm90.hpp
//   commit   0c6865d5a7c3
//   samples  15 per point: cold (clean L2 flush), held stream, all candidates of a point
//            interleaved; multi-block over n = 2^14..2^28 values, the one-block crossover over 256 B..64 KiB
// Score: geometric mean over (workload, n) of median / the best candidate's median there (1 = best everywhere).
//   1 B   logical_or/bool: policy<512, 2, 2, 512, 65536, 4>
//         multi-block 512x2 2/SM: geomean 1.011, worst 1.028 (runner-up 512x2 occupancy: 1.014)
//         CUB's median / its median 1.23 (geomean)
//         one block of 512 threads x 4 loads up to 64 KiB (nowhere slower: the largest size measured)
//   4 B   plus/int32, plus/float: policy<512, 4, 0, 512, 65536, 4>
//         multi-block 512x4 occupancy: geomean 1.013, worst 1.051 (runner-up 512x2 occupancy: 1.015)
//         CUB's median / its median 1.15 (geomean)
//         one block of 512 threads x 4 loads up to 64 KiB (nowhere slower: the largest size measured)
//         a block per pass of 512 threads x 8 loads from 512 MiB (not swept: kept from the table this run replaced; scripts/harness/pass_blocks.cu)
//   8 B   plus/double, affine_compose/affine32: policy<256, 4, 0, 512, 32768, 2>
//         multi-block 256x4 occupancy: geomean 1.003, worst 1.012 (runner-up 128x4 occupancy: 1.026)
//         CUB's median / its median 1.12 (geomean)
//         one block of 512 threads x 2 loads up to 32 KiB (the crossover)
//         a block per pass of 256 threads x 8 loads from 128 MiB (not swept: kept from the table this run replaced; scripts/harness/pass_blocks.cu)
//         the direct fold's grid capped at 4 blocks per SM (not swept: kept from the table this run replaced; results/NVIDIA_H200-lib/grid-waves.txt)
//         warp tiles' pass blocks from 512 MiB (not swept: kept from the table this run replaced; results/NVIDIA_H200-lib/in-order-pass-blocks.txt)
//   16 B  argmax/double_idx64, affine_compose/affine64: policy<512, 4, 2, 512, 65536, 2>
//         multi-block 512x4 2/SM: geomean 1.014, worst 1.073 (runner-up 512x4 occupancy: 1.019)
//         CUB's median / its median 1.05 (geomean)
//         one block of 512 threads x 2 loads up to 64 KiB (nowhere slower: the largest size measured)
//   2 B, 32 B: not tuned (no representative workload: they keep tuning::fallback)
#pragma once

#include "reducelab/tuning/policy.hpp"

namespace reducelab::tuning {

template <std::size_t SizeClass>
struct sm90 : fallback<SizeClass> {};

// 1-byte values (tuned on logical_or/bool)
template <>
struct sm90<1> : policy<512, 2, 2, 512, 65536, 4> {};

// 4-byte values (tuned on plus/int32, plus/float)
template <>
struct sm90<4> : policy<512, 4, 0, 512, 65536, 4, 536870912, 8> {};

// 8-byte values (tuned on plus/double, affine_compose/affine32)
template <>
struct sm90<8> : policy<256, 4, 0, 512, 32768, 2, 134217728, 8, 4, 536870912> {};

// 16-byte values (tuned on argmax/double_idx64, affine_compose/affine64)
template <>
struct sm90<16> : policy<512, 4, 2, 512, 65536, 2> {};

}  // namespace reducelab::tuning
