// CPU: option parsing and name validation of the reducelab tool.
#include "comparisons/provenance.hpp"
#include "comparisons/tune/tune.hpp"
#include "lab/cli/commands.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/tuning/sm90.hpp"
#include "usage_error_of.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <sstream>
#include <utility>
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
  EXPECT_NE(error_of([] { parse({"compare", "--mode", "warm"}); }).find("'warm'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--inputs", "zeros"}); }).find("'zeros'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--seed", "-1"}); }).find("--seed"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"list", "stray"}); }).find("'stray'"), std::string::npos);
}

TEST(Options, CompareTimingOptions) {
  const auto o = parse({"compare", "--flush", "memset", "--full", "--samples", "40", "--no-hold", "--no-confirm",
                        "--mode=both", "--out", "res"});
  EXPECT_EQ(o.command, "compare");
  EXPECT_EQ(o.flush, "memset");
  EXPECT_TRUE(o.full);
  EXPECT_EQ(o.samples, 40u);
  EXPECT_FALSE(o.hold);
  EXPECT_FALSE(o.confirm);
  EXPECT_EQ(o.mode, "both");
  EXPECT_EQ(o.out_dir, "res");
  EXPECT_EQ(parse({"compare", "--flush=clean"}).flush, "clean");
  EXPECT_EQ(parse({"compare", "--samples=5"}).samples, 5u);
  // The defaults: the quick sweep, the clean flush, the policy's sample count, held stream, confirmation round.
  const auto d = parse({"compare"});
  EXPECT_FALSE(d.full);
  EXPECT_EQ(d.flush, "clean");
  EXPECT_EQ(d.samples, 0u);
  EXPECT_TRUE(d.hold);
  EXPECT_TRUE(d.confirm);
  EXPECT_EQ(d.mode, "cold");
}

TEST(Options, BadCompareValuesAreNamed) {
  const std::string flush = error_of([] { parse({"compare", "--flush", "dirty"}); });
  EXPECT_NE(flush.find("--flush"), std::string::npos) << flush;
  EXPECT_NE(flush.find("'dirty'"), std::string::npos) << flush;
  const std::string few = error_of([] { parse({"compare", "--samples", "2"}); });
  EXPECT_NE(few.find("--samples"), std::string::npos) << few;
  EXPECT_NE(few.find("'2'"), std::string::npos) << few;
  const std::string nan = error_of([] { parse({"compare", "--samples", "x"}); });
  EXPECT_NE(nan.find("--samples"), std::string::npos) << nan;
  EXPECT_NE(nan.find("'x'"), std::string::npos) << nan;
  EXPECT_NE(error_of([] { parse({"check", "--offsets", "0,y"}); }).find("--offsets: 'y'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"compare", "--seed", "s"}); }).find("--seed: 's'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"compare", "--out="}); }).find("--out needs a value"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--ops", "--types", "int32"}); }).find("--ops needs a value"),
            std::string::npos);
}

TEST(Options, AnotherCommandsOptionIsRefused) {
  const std::string e = error_of([] { parse({"list", "--sizes", "1"}); });
  EXPECT_NE(e.find("'--sizes'"), std::string::npos) << e;
  EXPECT_NE(e.find("'list'"), std::string::npos) << e;
  EXPECT_NE(error_of([] { parse({"check", "--flush", "clean"}); }).find("'--flush'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--mode", "hot"}); }).find("'--mode'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"methods", "--ops", "plus"}); }).find("'--ops'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"compare", "--inputs", "random"}); }).find("'--inputs'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"check", "--bogus=1"}); }).find("'--bogus'"), std::string::npos);
}

TEST(Options, TuneOptions) {
  const auto o = parse({"tune", "--samples", "20", "--quick", "--out", "tune.json", "--write-header",
                        "include/reducelab/tuning/sm90.hpp", "--seed", "7"});
  EXPECT_EQ(o.command, "tune");
  EXPECT_EQ(o.samples, 20u);
  EXPECT_TRUE(o.quick);
  EXPECT_EQ(o.out_file, "tune.json");
  EXPECT_TRUE(o.out_dir.empty());  // tune's --out names a file, compare's a folder: they land in different fields
  EXPECT_EQ(o.header_file, "include/reducelab/tuning/sm90.hpp");
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(parse({"tune", "--write-header=h.hpp", "--out=t.json"}).header_file, "h.hpp");
  EXPECT_EQ(parse({"compare", "--out", "res"}).out_file, "");
  // The defaults: every size, the default sample count (0 = default_tune_samples), nothing written.
  const auto d = parse({"tune"});
  EXPECT_FALSE(d.quick);
  EXPECT_EQ(d.samples, 0u);
  EXPECT_TRUE(d.out_file.empty());
  EXPECT_TRUE(d.header_file.empty());
  EXPECT_GE(default_tune_samples, min_compare_samples);
}

// What `reducelab tune --write-header` writes for a class is the policy the table holds, trailing fields included:
// the header it writes must give the library back the same numbers.
TEST(Tune, WrittenPolicyIsTheTablesOwn) {
  using reducelab::tune::policy_text;
  namespace tuning = reducelab::tuning;
  EXPECT_EQ(policy_text(tuning::values_of<tuning::sm90<1>>()), "policy<512, 2, 2, 512, 65536, 4>");
  EXPECT_EQ(policy_text(tuning::values_of<tuning::sm90<4>>()), "policy<512, 4, 0, 512, 65536, 4, 536870912, 8>");
  EXPECT_EQ(policy_text(tuning::values_of<tuning::sm90<8>>()),
            "policy<256, 4, 0, 512, 32768, 2, 134217728, 8, 4, 536870912>");
  // The warp tiles' own size alone writes every field before it; the same size as the direct fold's is left out.
  EXPECT_EQ(policy_text(tuning::values_of<tuning::policy<256, 2, 0, 256, 16384, 2, 1024, 4, 0, 4096>>()),
            "policy<256, 2, 0, 256, 16384, 2, 1024, 4, 0, 4096>");
  EXPECT_EQ(policy_text(tuning::values_of<tuning::policy<256, 2, 0, 256, 16384, 2, 1024, 4, 0, 1024>>()),
            "policy<256, 2, 0, 256, 16384, 2, 1024, 4>");
  // A direct-fold cap without pass blocks still writes the pass-block pair before it (the fields are positional).
  EXPECT_EQ(policy_text(tuning::values_of<tuning::policy<256, 2, 0, 256, 16384, 2, 0, 0, 3>>()),
            "policy<256, 2, 0, 256, 16384, 2, 0, 2, 3>");
}

// The policy object a compare row and tune's results carry: every field the table sets, the optional ones only there.
TEST(Tune, PolicyJsonHasTheTablesOptionalFieldsOnlyWhereSet) {
  namespace tuning = reducelab::tuning;
  const auto p8 = reducelab::provenance::policy_json(tuning::values_of<tuning::sm90<8>>());
  EXPECT_EQ(p8.at("block_threads"), 256);
  EXPECT_EQ(p8.at("pass_blocks_min_bytes"), std::size_t{128} << 20);
  EXPECT_EQ(p8.at("pass_blocks_vectors"), 8);
  EXPECT_EQ(p8.at("direct_fold_blocks_per_sm"), 4);
  EXPECT_EQ(p8.at("in_order_pass_blocks_min_bytes"), std::size_t{512} << 20);
  // 4-byte values: the warp tiles take pass blocks from the direct fold's size, so the field is left out.
  const auto p4 = reducelab::provenance::policy_json(tuning::values_of<tuning::sm90<4>>());
  EXPECT_EQ(p4.at("pass_blocks_min_bytes"), std::size_t{512} << 20);
  EXPECT_FALSE(p4.contains("in_order_pass_blocks_min_bytes"));
  const auto p1 = reducelab::provenance::policy_json(tuning::values_of<tuning::sm90<1>>());
  EXPECT_EQ(p1.at("blocks_per_sm"), 2);
  EXPECT_FALSE(p1.contains("pass_blocks_min_bytes"));
  EXPECT_FALSE(p1.contains("direct_fold_blocks_per_sm"));
  EXPECT_FALSE(p1.contains("in_order_pass_blocks_min_bytes"));
}

TEST(Options, BadTuneValuesAreNamed) {
  const std::string few = error_of([] { parse({"tune", "--samples", "4"}); });
  EXPECT_NE(few.find("--samples: '4' is below the minimum of 5"), std::string::npos) << few;
  for (const char* empty : {"--write-header", "--write-header="})
    EXPECT_NE(error_of([&] { parse({"tune", empty}); }).find("--write-header needs a value"), std::string::npos)
        << empty;
  EXPECT_NE(error_of([] { parse({"tune", "--out", "--quick"}); }).find("--out needs a value"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"tune", "--write-header", "--out", "t.json"}); }).find("--write-header needs a value"),
            std::string::npos);
  // Options of other commands, and tune's own on other commands, are refused with the command named.
  for (const char* other : {"--ops", "--sizes", "--mode", "--flush", "--full", "--no-hold"}) {
    const std::string e = error_of([&] { parse({"tune", other, "x"}); });
    EXPECT_NE(e.find(std::string("'") + other + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("'tune'"), std::string::npos) << e;
  }
  EXPECT_NE(error_of([] { parse({"compare", "--quick"}); }).find("'--quick'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"compare", "--write-header", "h"}); }).find("'--write-header'"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"tune", "stray"}); }).find("'stray'"), std::string::npos);
}

TEST(Options, InputKindsComeFromTheEnum) {
  EXPECT_EQ(parse({"check", "--inputs", "nan"}).inputs,
            (std::vector<reducelab::input_kind>{reducelab::input_kind::nan}));
  std::string all;
  for (const auto k : reducelab::all_input_kinds) all += (all.empty() ? "" : ",") + std::string(to_string(k));
  EXPECT_EQ(parse({"check", "--inputs", all.c_str()}).inputs.size(), std::size(reducelab::all_input_kinds));
  // An unknown kind is named with the list of valid ones.
  const std::string e = error_of([] { parse({"check", "--inputs", "zeros"}); });
  for (const auto k : reducelab::all_input_kinds) EXPECT_NE(e.find(to_string(k)), std::string::npos) << e;
}

TEST(Options, PositionalsAndTheOtherCommands) {
  EXPECT_EQ(parse({"diff", "a.json", "b.json"}).positional, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_NE(error_of([] { parse({"diff", "a.json"}); }).find("(got 1)"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"diff", "a.json", "b.json", "c.json"}); }).find("(got 3)"), std::string::npos);
  const auto r = parse({"report", "r.json", "--out=plots"});
  EXPECT_EQ(r.positional, (std::vector<std::string>{"r.json"}));
  EXPECT_EQ(r.out_dir, "plots");
  // Several results files are the parts of a split sweep, merged into --out.
  EXPECT_EQ(parse({"report", "a.json", "b.json", "--out", "m"}).positional.size(), 2u);
  EXPECT_NE(error_of([] { parse({"report", "a.json", "b.json"}); }).find("needs --out"), std::string::npos);
  EXPECT_NE(error_of([] { parse({"report"}); }).find("needs a results file"), std::string::npos);
  const auto m = parse({"methods", "--sizes", "2^10:2^14:4", "--out", "m"});
  EXPECT_EQ(m.command, "methods");
  EXPECT_EQ(m.sizes, (std::vector<std::size_t>{1024, 4096, 16384}));
  EXPECT_EQ(m.out_dir, "m");
  const std::string unknown = error_of([] { parse({"frobnicate"}); });
  for (const char* c : {"list", "check", "compare", "report", "diff", "methods", "tune", "help"})
    EXPECT_NE(unknown.find(c), std::string::npos) << unknown;
}

TEST(Help, TheToolsHelpListsEveryCommand) {
  for (const std::vector<const char*>& args : {std::vector<const char*>{"--help"}, {"-h"}, {"help"}}) {
    const auto o = parse(args);
    EXPECT_EQ(o.command, "help");
    EXPECT_EQ(o.help_text, usage());
  }
  for (const char* c : {"list", "check", "compare", "report", "diff", "methods", "tune", "help"})
    EXPECT_NE(usage().find(c), std::string::npos) << c;
}

TEST(Help, EveryCommandHasItsOwnHelp) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> expected = {
      {"list", {"--json", "--ops"}},
      {"check", {"--ops", "--types", "--variants", "--sizes", "--inputs", "--offsets", "--seed", "--verbose"}},
      {"compare", {"--flush", "--full", "--samples", "--no-hold", "--no-confirm", "--mode", "--out", "--sizes",
                   "affine_compose", "factors of 4"}},
      {"report", {"RESULTS.json", "--out"}},
      {"diff", {"A.json"}},
      {"methods", {"--sizes", "--out"}},
      {"tune", {"--samples", "--quick", "--out", "--write-header", "--seed", "sm90.hpp", "logical_or/bool",
                "affine_compose/affine32", "2^14..2^28", "crossover"}},
  };
  for (const auto& [command, mentions] : expected) {
    for (const char* flag : {"--help", "-h"}) {
      const auto o = parse({command, flag});
      EXPECT_EQ(o.command, "help") << command;
      EXPECT_NE(o.help_text.find(std::string("reducelab ") + command), std::string::npos) << o.help_text;
      for (const char* m : mentions) EXPECT_NE(o.help_text.find(m), std::string::npos) << command << ": " << m;
    }
    EXPECT_EQ(parse({"help", command}).help_text, parse({command, "--help"}).help_text);
  }
  // A command's help is not the tool's, and leaves out other commands' options.
  EXPECT_NE(parse({"list", "--help"}).help_text, usage());
  EXPECT_EQ(parse({"list", "--help"}).help_text.find("--sizes"), std::string::npos);
  EXPECT_EQ(parse({"check", "--help"}).help_text.find("--flush"), std::string::npos);
  EXPECT_EQ(parse({"tune", "--help"}).help_text.find("--ops"), std::string::npos);
  EXPECT_EQ(parse({"compare", "--help"}).help_text.find("--write-header"), std::string::npos);
  // --help wins over a bad value elsewhere on the line.
  EXPECT_EQ(parse({"compare", "--samples", "2", "--help"}).command, "help");
  EXPECT_EQ(parse({"tune", "--samples", "2", "--help"}).command, "help");
  EXPECT_NE(error_of([] { parse({"help", "frobnicate"}); }).find("'frobnicate'"), std::string::npos);
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
  const std::string t = error_of([&] { run_command(parse({"tune", "--quick"}), out, "reducelab tune --quick"); });
  EXPECT_NE(t.find("'tune' needs a GPU"), std::string::npos) << t;
  EXPECT_TRUE(out.str().empty()) << out.str();  // refused before printing anything
}

TEST(Commands, TuneRefusesAMissingOutputFolderBeforeMeasuring) {
  std::ostringstream out;
  const std::string e = error_of([&] { run_command(parse({"tune", "--out", "no/such/folder/t.json"}), out); });
  EXPECT_NE(e.find("--out: the folder 'no/such/folder' does not exist"), std::string::npos) << e;
  const std::string h = error_of([&] { run_command(parse({"tune", "--write-header", "no/such/sm90.hpp"}), out); });
  EXPECT_NE(h.find("--write-header: the folder 'no/such' does not exist"), std::string::npos) << h;
  EXPECT_TRUE(out.str().empty()) << out.str();
}
