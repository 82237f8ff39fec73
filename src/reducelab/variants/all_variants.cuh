// The custom variants, in ladder order. Adding a variant: one header under src/reducelab/variants/ and one
// line here; it then appears in `reducelab list`, the GPU tests, `check` and `compare`.
#pragma once

#include "reducelab/core/type_list.hpp"
#include "reducelab/variants/grid_stride_shuffle.cuh"

namespace reducelab {

using all_variants = type_list<variants::grid_stride_shuffle>;

}  // namespace reducelab
