// CPU: option parsing and name validation of the reducelab tool.
#include "reducelab/cli/commands.hpp"
#include "reducelab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace reducelab::cli;
using reducelab::usage_error;

namespace {
options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "reducelab");
  return parse_options(static_cast<int>(args.size()), args.data());
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Sizes, Expressions) {
  EXPECT_EQ(parse_size("1000"), 1000u);
  EXPECT_EQ(parse_size("2^20"), 1u << 20);
  EXPECT_EQ(parse_size("2^20+7"), (1u << 20) + 7);
  EXPECT_EQ(parse_size("2^16-1"), 65535u);
  EXPECT_EQ(parse_size("1e6"), 1000000u);
  EXPECT_EQ(parse_size("0"), 0u);
}

TEST(Sizes, ListsAndRanges) {
  EXPECT_EQ(parse_size_list("0,1,31"), (std::vector<std::size_t>{0, 1, 31}));
  EXPECT_EQ(parse_size_list("2^10:2^14:4"), (std::vector<std::size_t>{1024, 4096, 16384}));
  EXPECT_EQ(parse_size_list("2^10:2^12"), (std::vector<std::size_t>{1024, 2048, 4096}));
}

TEST(Sizes, MalformedSizesAreNamed) {
  EXPECT_NE(error_of([] { parse_size("abc"); }).find("'abc'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size("2^x"); }).find("2^x"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size("2^70"); }).find("overflows"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size("5-9"); }).find("negative"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size_list("1,,2"); }).find("empty item"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size_list("2^12:2^10"); }).find("start > stop"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size_list("2:8:1"); }).find("factor"), std::string::npos);
}

TEST(Options, CommandsAndFilters) {
  const auto o = parse({"check", "--ops", "plus,maximum", "--types=int32", "--sizes", "0,2^20+7", "--inputs",
                        "random,constant", "--offsets", "0,1", "--seed", "9", "--verbose"});
  EXPECT_EQ(o.command, "check");
  EXPECT_EQ(o.ops, (std::vector<std::string>{"plus", "maximum"}));
  EXPECT_EQ(o.types, (std::vector<std::string>{"int32"}));
  EXPECT_EQ(o.sizes, (std::vector<std::size_t>{0, (1u << 20) + 7}));
  EXPECT_EQ(o.inputs.size(), 2u);
  EXPECT_EQ(o.offsets, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(o.seed, 9u);
  EXPECT_TRUE(o.verbose);
  EXPECT_TRUE(parse({"list", "--json"}).json);
}

TEST(Options, BadInputIsRefusedWithItsName) {
  EXPECT_NE(error_of([] { parse({}); }).find("no command"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"frobnicate"}); }).find("'frobnicate'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--bogus"}); }).find("'--bogus'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--ops"}); }).find("--ops needs a value"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--mode", "warm"}); }).find("'warm'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--inputs", "zeros"}); }).find("'zeros'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--seed", "-1"}); }).find("--seed"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"list", "stray"}); }).find("'stray'"), std::string::npos);
}

TEST(Selection, UnknownFunctorTypeOrVariantIsNamed) {
  const auto& reg = reducelab::the_registry();
  EXPECT_NE(error_of([&] { select_cases(reg, parse({"check", "--ops", "plsu"})); }).find("unknown functor 'plsu'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { select_cases(reg, parse({"check", "--types", "int31"})); }).find("unknown type 'int31'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { validate_backends(reg, parse({"check", "--variants", "fastest"})); }).find("'fastest'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { select_cases(reg, parse({"check", "--ops", "plus", "--types", "bool"})); }).find("no functor"),
            std::string::npos);
  const auto picked = select_cases(reg, parse({"check", "--ops", "plus,bit_xor", "--types", "int32,float"}));
  ASSERT_EQ(picked.size(), 3u);  // registry order (functor files sorted by name): bit_xor/int32, plus/int32, plus/float
  EXPECT_EQ(picked[0].functor->name, "bit_xor");
  EXPECT_EQ(picked[2].value->type_name(), "float");
}

TEST(Commands, ListShowsFunctorsIdentitiesAndTheMatrix) {
  std::ostringstream out;
  EXPECT_EQ(run_command(parse({"list"}), out), 0);
  const std::string text = out.str();
  for (const char* s : {"plus", "affine_compose", "NON-commutative", "identity -0", "identity -inf",
                        "grid_stride_shuffle", "thrust::reduce", "Applicability", "needs a commutative functor"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  std::ostringstream json;
  EXPECT_EQ(run_command(parse({"list", "--json", "--ops", "maximum"}), json), 0);
  EXPECT_NE(json.str().find("\"identity\": \"-inf\""), std::string::npos);
  // The matrix's column numbers are the numbers in the list of variants, and the longest baseline name
  // stays apart from the column after it.
  EXPECT_NE(text.find(" [1] atomic_shared_slot "), std::string::npos) << text;
  EXPECT_NE(text.find("cub::DeviceScan::InclusiveScan(last)  cub"), std::string::npos) << text;
}

TEST(Commands, GpuCommandsSayPlainlyWhenThereIsNoGpu) {
  if (reducelab::device_count() > 0) GTEST_SKIP() << "a GPU is present: the no-GPU message cannot be checked here";
  std::ostringstream out;
  const std::string e = error_of([&] { run_command(parse({"check"}), out); });
  EXPECT_NE(e.find("'check' needs a GPU"), std::string::npos) << e;
}
