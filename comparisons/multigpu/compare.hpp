// `reducelab-multigpu compare`: the command behind the options (see options.hpp and compare.cpp).
#pragma once

#include "comparisons/multigpu/options.hpp"

#include <ostream>
#include <string>

namespace reducelab::multigpu::tool {

/// Run the comparison: refuse without a GPU (usage_error) or with --gpus above the visible count, set
/// NCCL_NVLS_ENABLE=0 unless the environment sets it, then validate and time every selected case, print the table
/// and the goals, and write multigpu.json and multigpu.csv into o.out_dir. Returns 0 when every case that ran
/// validated, 1 otherwise.
int run_compare(const options& o, std::ostream& out, const std::string& command_line);

}  // namespace reducelab::multigpu::tool
