// CPU: `reducelab segmented check|compare` option parsing, its GPU-less refusal, and the bytes-moved formula
// behind its GB/s.
#include "comparisons/segmented/bytes_moved.hpp"
#include "lab/cli/commands.hpp"
#include "lab/core/device_info.hpp"
#include "lab/segmented/host/layouts.hpp"
#include "reducelab/core/error.hpp"
#include "usage_error_of.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace reducelab::cli;
using reducelab::usage_error;

namespace {
options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "reducelab");
  return parse_options(static_cast<int>(args.size()), args.data());
}

using test_support::error_of;
}  // namespace

TEST(SegmentedOptions, CheckTakesLayoutsAndFilters) {
  const options o = parse({"segmented", "check", "--segments", "uniform:8,zipf:1.2,empty90,giant,keys1,uniform:2^16",
                           "--ops", "plus", "--types", "float", "--sizes", "2^20+3"});
  EXPECT_EQ(o.command, "segmented");
  EXPECT_EQ(o.action, "check");
  EXPECT_EQ(o.segments, (std::vector<std::string>{"uniform:8", "zipf:1.2", "empty90", "giant", "keys1", "uniform:2^16"}));
  EXPECT_EQ(o.ops, std::vector<std::string>{"plus"});
  EXPECT_EQ(o.sizes, std::vector<std::size_t>{(std::size_t{1} << 20) + 3});
}

TEST(SegmentedOptions, CompareTakesSamplesAndOut) {
  const options o = parse({"segmented", "compare", "--samples", "7", "--out", "dir", "--variants", "warp_per_segment"});
  EXPECT_EQ(o.action, "compare");
  EXPECT_EQ(o.samples, 7u);
  EXPECT_EQ(o.out_dir, "dir");
  EXPECT_EQ(o.variants, std::vector<std::string>{"warp_per_segment"});
  EXPECT_TRUE(o.segments.empty());  // the command's defaults apply
}

TEST(SegmentedOptions, JunkLayoutIsRefusedByName) {
  const std::string e = error_of([] { parse({"segmented", "check", "--segments", "uniform:8,banana"}); });
  EXPECT_NE(e.find("'banana'"), std::string::npos) << e;
  EXPECT_NE(error_of([] { parse({"segmented", "compare", "--segments", "uniform:0"}); }).find("'uniform:0'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse({"segmented", "check", "--segments", "zipf:-1"}); }).find("'zipf:-1'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse({"segmented", "check", "--segments", "uniform:8,,giant"}); }).find("empty item"),
            std::string::npos);
}

TEST(SegmentedOptions, EachActionTakesOnlyItsOptions) {
  const std::string e = error_of([] { parse({"segmented", "check", "--samples", "7"}); });
  EXPECT_NE(e.find("unknown option '--samples' for 'segmented check'"), std::string::npos) << e;
  EXPECT_NE(error_of([] { parse({"segmented"}); }), "");           // no action
  EXPECT_NE(error_of([] { parse({"segmented", "verify"}); }), "");  // no such action
  EXPECT_NE(error_of([] { parse({"segmented", "compare", "--samples", "2"}); }).find("below the minimum"),
            std::string::npos);
}

TEST(SegmentedCommand, RefusesWithoutAGpu) {
  if (reducelab::why_no_device().empty()) GTEST_SKIP() << "a GPU is present: the GPU-less path cannot be shown here";
  std::ostringstream out;
  const std::string e = error_of([&] { run_command(parse({"segmented", "check", "--ops", "plus"}), out); });
  // usage_error is what main() turns into exit code 2, as for the scalar check.
  EXPECT_NE(e.find("'segmented check' needs a GPU"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { run_command(parse({"segmented", "compare"}), out); }).find("'segmented compare' needs a GPU"),
            std::string::npos);
}

TEST(SegmentedCommand, UnknownNamesAreRefusedBeforeTheGpu) {
  std::ostringstream out;
  EXPECT_NE(error_of([&] { run_command(parse({"segmented", "check", "--ops", "multiplies"}), out); }).find("'multiplies'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { run_command(parse({"segmented", "check", "--variants", "nope"}), out); }).find("'nope'"),
            std::string::npos);
}

TEST(SegmentedBytes, FormulaOnASmallLayout) {
  namespace tool = reducelab::segmented::tool;
  const auto layout = reducelab::segmented::uniform(10, 4);  // [0,4) [4,8) [8,10)
  ASSERT_EQ(layout.num_segments(), 3u);
  // 10 float values + 4 int64 offsets + 3 float results
  EXPECT_EQ(tool::segmented_bytes_moved(layout.size(), layout.num_segments(), sizeof(float), 8), 10 * 4 + 4 * 8 + 3 * 4u);
  // 10 int32 keys and double values, 3 unique keys and sums, the 8-byte run count
  EXPECT_EQ(tool::by_key_bytes_moved(10, 3, 4, sizeof(double)), 10 * 12 + 3 * 12 + 8u);
  EXPECT_EQ(tool::segmented_bytes_moved(0, 0, 8, 8), 8u);  // an empty input still reads its one offset
}
