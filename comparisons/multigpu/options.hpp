// `reducelab-multigpu`: its options (CLI11 underneath, kept out of this header), the cases it knows by name, and
// the checks made before any GPU work. Pure host code with no CUDA or NCCL dependency, so it is unit-tested on
// any machine (tests/test_multigpu_tool.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace reducelab::multigpu::tool {

/// The two operations the command times: one scalar per reduction, and the elementwise all-reduce of vectors.
enum class part { scalar, all_reduce };
const char* to_string(part p);

/// One (functor, value type) case of one part, e.g. scalar plus/int32.
struct case_name {
  part which = part::scalar;
  std::string functor;
  std::string type;
  std::string label() const { return functor + "/" + type; }
  bool operator==(const case_name& o) const { return which == o.which && functor == o.functor && type == o.type; }
};

/// Every case the command can run, in the order it runs them: the scalar reduce of plus (int32, float), argmax
/// (float_idx32), mean_variance (moments64), affine_compose (affine32); the all-reduce of plus (int32, float)
/// and argmax (float_idx32). The runners (scalar_cases.cu, all_reduce_cases.cu) serve exactly these.
const std::vector<case_name>& known_cases();

/// How a sample is clocked: CUDA events on GPU 0's stream bracketing the fork and the join (the default), or the
/// host's clock around a call that returns once every rank's stream is done.
enum class clock_choice { events, host };
const char* to_string(clock_choice c);

/// Which all_reduce path is timed: over NCCL symmetric memory (a symmetric_workspace passed in all_reduce_options,
/// the default; the tool falls back to send/recv, saying why, where it cannot be made) or over ncclSend/ncclRecv.
enum class all_reduce_path { symmetric, send_recv };
const char* to_string(all_reduce_path p);

inline constexpr std::size_t default_scalar_n = std::size_t{1} << 31;
inline constexpr std::size_t default_all_reduce_bytes = std::size_t{256} << 20;
inline constexpr std::size_t default_piece_bytes = 0;  // all_reduce_options' default: one piece per chunk
/// The widest value type of the all-reduce cases (float_idx32): a piece must hold at least one.
inline constexpr std::size_t largest_all_reduce_element = 8;
/// 30, not 10: on the two-H200 machine about one sample in five of the split affine_compose reduce takes 100 µs more
/// than the rest (1967-1977 against 1865-1874 µs in 40 rounds, stop 30), and ten samples with a few of those, after the
/// clocks' ramp, put the median on the slow ones (1.88x one GPU at 10 rounds, 1.98x at 40 on another machine of the
/// kind; results/NVIDIA_H200-x2-multigpu/rounds.txt).
inline constexpr int default_rounds = 30;
/// Below this a median and a bootstrap interval mean little.
inline constexpr int min_rounds = 3;

struct options {
  std::string command;  // "compare", or "help" with help_text set
  std::string help_text;
  int gpus = 0;                                        // 0: every visible GPU (an explicit value is at least 1)
  std::vector<std::size_t> sizes{default_scalar_n};    // scalar: total elements, split over the GPUs
  std::vector<std::size_t> bytes{default_all_reduce_bytes};  // all-reduce: bytes of each rank's vector
  std::vector<case_name> cases = known_cases();        // after --ops and --parts
  int rounds = default_rounds;
  std::size_t piece_bytes = default_piece_bytes;
  all_reduce_path path = all_reduce_path::symmetric;
  clock_choice clock = clock_choice::events;
  std::uint64_t seed = 20261122;
  std::string out_dir = "results/latest-multigpu";
};

/// Parse argv (argv[0] is the program). Throws usage_error with a one-line message naming the problem.
/// `--help` anywhere (or no arguments at all) gives command "help" with the text to print.
options parse_command_line(int argc, const char* const* argv);

/// The whole tool's help text.
std::string usage();

/// The case names `--ops` and `--parts` select: an --ops item is a functor (all its cases) or functor/type; a
/// --parts item is scalar or all_reduce (all-reduce too). Empty lists select everything. Unknown names and a
/// selection that leaves nothing are usage errors naming the known ones.
std::vector<case_name> select_cases(const std::vector<std::string>& ops, const std::vector<std::string>& parts);

/// A byte count: what parse_size reads (256, 2^28, 1e6, 2^28+4), optionally followed by KiB, MiB or GiB.
std::size_t parse_bytes(const std::string& text);

/// The number of ranks to use: `requested` (0 meaning all of them) checked against the visible devices.
/// Throws usage_error naming the request and the count when it is below 1 or above `visible`.
int resolve_gpu_count(int requested, int visible);

/// What the tool did about NCCL_NVLS_ENABLE (NVLink SHARP multicast, which these machines must leave off).
struct nvls_setting {
  bool set_by_us = false;  // false: the environment already had a value, which was kept
  std::string value;
  std::string message() const;
};

/// Set NCCL_NVLS_ENABLE=0 in this process unless the environment already sets it (call before any NCCL call).
nvls_setting apply_nvls_default();

}  // namespace reducelab::multigpu::tool
