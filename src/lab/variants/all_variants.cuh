// The custom variants, in ladder order: reading them top to bottom is the story of how a reduction gets
// fast. Adding a variant: one kernel header under kernels/, one host header here in variants/, and one line
// below; it then appears in `reducelab list`, the GPU tests, `check` and `compare`.
#pragma once

#include "reducelab/core/type_list.hpp"
#include "lab/variants/atomic_shared_slot.cuh"
#include "lab/variants/compensated_sum.cuh"
#include "lab/variants/complete_unroll.cuh"
#include "lab/variants/cooperative_groups.cuh"
#include "lab/variants/cpu_finish.cuh"
#include "lab/variants/first_add_during_load.cuh"
#include "lab/variants/grid_stride_shuffle.cuh"
#include "lab/variants/grid_sync_cooperative.cuh"
#include "lab/variants/hardware_warp_reduce.cuh"
#include "lab/variants/interleaved_divergent.cuh"
#include "lab/variants/interleaved_strided.cuh"
#include "lab/variants/many_per_thread.cuh"
#include "lab/variants/multi_pass.cuh"
#include "lab/variants/order_preserving.cuh"
#include "lab/variants/sequential_addressing.cuh"
#include "lab/variants/shuffle_atomic_per_block.cuh"
#include "lab/variants/shuffle_atomic_per_warp.cuh"
#include "lab/variants/single_pass_last_block.cuh"
#include "lab/variants/unrolled_last_warp.cuh"
#include "lab/variants/vectorized_loads.cuh"

namespace reducelab {

using all_variants = type_list<variants::atomic_shared_slot,        //  1 atomics into one shared slot
                               variants::interleaved_divergent,     //  2 tree, tid % (2s) branch
                               variants::interleaved_strided,       //  3 tree, strided index
                               variants::sequential_addressing,     //  4 tree, tid < s
                               variants::first_add_during_load,     //  5 two loads per thread
                               variants::unrolled_last_warp,        //  6 last warp unrolled, __syncwarp
                               variants::complete_unroll,           //  7 block size as template parameter
                               variants::many_per_thread,           //  8 grid-stride loop
                               variants::grid_stride_shuffle,       //  9 warp shuffles
                               variants::shuffle_atomic_per_warp,   // 10 one atomic per warp
                               variants::shuffle_atomic_per_block,  // 10 one atomic per block
                               variants::cooperative_groups,        // 11 cg::reduce
                               variants::vectorized_loads,          // 12 16-byte loads
                               variants::multi_pass,                // 13 relaunch on partials
                               variants::cpu_finish,                // 14 host combines partials
                               variants::single_pass_last_block,    // 15 last block finishes
                               variants::grid_sync_cooperative,     // 16 grid.sync()
                               variants::order_preserving,          // 17 in order, coalesced
                               variants::compensated_sum,           // 18 Neumaier/TwoSum compensated sum
                               variants::hardware_warp_reduce>;     // 19 __reduce_*_sync, vote

}  // namespace reducelab
