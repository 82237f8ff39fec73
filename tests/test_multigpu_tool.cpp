// CPU: `reducelab-multigpu compare`'s host logic: option parsing and refusals, the GPU count check, how n is split
// over the ranks, nccl-tests' bandwidth formulas, the memory-fit check, the content hash, the NCCL_NVLS_ENABLE
// default, and how issue 14's goals are judged (PASS, MISS, NO DATA).
#include "comparisons/multigpu/goals.hpp"
#include "comparisons/multigpu/measures.hpp"
#include "comparisons/multigpu/options.hpp"
#include "reducelab/core/error.hpp"
#include "usage_error_of.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

using namespace reducelab::multigpu::tool;
using reducelab::usage_error;

namespace {

options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "reducelab-multigpu");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

using test_support::error_of;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(MultigpuToolOptions, DefaultsAreIssue14s) {
  const options o = parse({"compare"});
  EXPECT_EQ(o.command, "compare");
  EXPECT_EQ(o.gpus, 0);  // every visible GPU
  EXPECT_EQ(o.sizes, std::vector<std::size_t>{std::size_t{1} << 31});
  EXPECT_EQ(o.bytes, std::vector<std::size_t>{std::size_t{256} << 20});
  EXPECT_EQ(o.cases, known_cases());
  EXPECT_EQ(o.rounds, default_rounds);
  EXPECT_EQ(o.clock, clock_choice::events);
  EXPECT_EQ(o.piece_bytes, std::size_t{0});  // one piece per chunk
  EXPECT_EQ(o.path, all_reduce_path::symmetric);
  EXPECT_EQ(o.out_dir, "results/latest-multigpu");
}

TEST(MultigpuToolOptions, EveryOptionIsRead) {
  const options o = parse({"compare", "--gpus", "2", "--sizes", "2^20,1000", "--bytes", "64MiB,2^20", "--ops",
                           "plus/float,argmax", "--parts", "all_reduce", "--rounds", "7", "--clock", "host",
                           "--piece-bytes", "1MiB", "--all-reduce-path", "send-recv", "--seed", "5", "--out",
                           "here"});
  EXPECT_EQ(o.gpus, 2);
  EXPECT_EQ(o.sizes, (std::vector<std::size_t>{std::size_t{1} << 20, 1000}));
  EXPECT_EQ(o.bytes, (std::vector<std::size_t>{std::size_t{64} << 20, std::size_t{1} << 20}));
  ASSERT_EQ(o.cases.size(), 2u);
  EXPECT_EQ(o.cases[0], (case_name{part::all_reduce, "plus", "float"}));
  EXPECT_EQ(o.cases[1], (case_name{part::all_reduce, "argmax", "float_idx32"}));
  EXPECT_EQ(o.rounds, 7);
  EXPECT_EQ(o.clock, clock_choice::host);
  EXPECT_EQ(o.piece_bytes, std::size_t{1} << 20);
  EXPECT_EQ(o.path, all_reduce_path::send_recv);
  EXPECT_EQ(o.seed, 5u);
  EXPECT_EQ(o.out_dir, "here");
}

TEST(MultigpuToolOptions, HelpNeedsNoGpu) {
  for (const auto& args : {std::vector<const char*>{}, std::vector<const char*>{"--help"},
                           std::vector<const char*>{"compare", "--help"}}) {
    const options o = parse(args);
    EXPECT_EQ(o.command, "help");
    EXPECT_TRUE(contains(o.help_text, "compare")) << o.help_text;
  }
  EXPECT_TRUE(contains(parse({"compare", "--help"}).help_text, "--piece-bytes"));
  EXPECT_TRUE(contains(parse({"compare", "--help"}).help_text, "--all-reduce-path"));
}

TEST(MultigpuToolOptions, BadValuesAreRefusedByName) {
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--gpus", "0"}); }), "--gpus 0"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--gpus", "-1"}); }), "at least 1 GPU"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--gpus", "two"}); }), "'two'"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--rounds", "2"}); }), "--rounds 2"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--clock", "wall"}); }), "'wall'"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--ops", "maximum"}); }), "'maximum'"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--ops", "plus/double"}); }), "'plus/double'"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--parts", "gather"}); }), "'gather'"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--sizes", "0"}); }), "--sizes"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--bytes", "0MiB"}); }), "--bytes"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--piece-bytes", "4"}); }), "--piece-bytes 4"));
  EXPECT_EQ(parse({"compare", "--piece-bytes", "0"}).piece_bytes, std::size_t{0});  // one piece per chunk
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--all-reduce-path", "nvls"}); }), "'nvls'"));
  EXPECT_EQ(parse({"compare", "--all-reduce-path", "symmetric"}).path, all_reduce_path::symmetric);
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--ops", "--rounds", "5"}); }), "--ops"));
  EXPECT_TRUE(contains(error_of([] { parse({"compare", "--frobnicate"}); }), "'--frobnicate'"));
  EXPECT_TRUE(contains(error_of([] { parse({"time"}); }), "unknown command 'time'"));
}

TEST(MultigpuToolOptions, SelectionOfCases) {
  // argmax appears in both parts; mean_variance only in the scalar one.
  EXPECT_EQ(select_cases({"argmax"}, {}).size(), 2u);
  EXPECT_EQ(select_cases({}, {"scalar"}).size(), 5u);
  EXPECT_EQ(select_cases({}, {"all-reduce"}).size(), 3u);
  EXPECT_EQ(select_cases({"plus"}, {}).size(), 4u);
  EXPECT_TRUE(contains(error_of([] { select_cases({"mean_variance"}, {"all_reduce"}); }), "selects no case"));
}

TEST(MultigpuToolOptions, ByteCounts) {
  EXPECT_EQ(parse_bytes("256MiB"), std::size_t{256} << 20);
  EXPECT_EQ(parse_bytes("1GiB"), std::size_t{1} << 30);
  EXPECT_EQ(parse_bytes("4KiB"), 4096u);
  EXPECT_EQ(parse_bytes("2^28"), std::size_t{1} << 28);
  EXPECT_EQ(parse_bytes("1000"), 1000u);
  EXPECT_THROW(parse_bytes("MiB"), usage_error);
  EXPECT_THROW(parse_bytes("12XB"), usage_error);
}

TEST(MultigpuToolOptions, GpuCountAgainstTheMachine) {
  EXPECT_EQ(resolve_gpu_count(0, 8), 8);  // default: all of them
  EXPECT_EQ(resolve_gpu_count(2, 8), 2);
  EXPECT_EQ(resolve_gpu_count(1, 1), 1);
  const std::string too_many = error_of([] { resolve_gpu_count(3, 2); });
  EXPECT_TRUE(contains(too_many, "--gpus 3")) << too_many;
  EXPECT_TRUE(contains(too_many, "2 visible GPUs")) << too_many;
  EXPECT_TRUE(contains(error_of([] { resolve_gpu_count(-1, 2); }), "--gpus -1"));
  EXPECT_THROW(resolve_gpu_count(0, 0), usage_error);
}

TEST(MultigpuToolOptions, NvlsDefaultKeepsTheUsersValue) {
  const char* before = std::getenv("NCCL_NVLS_ENABLE");
  const std::string saved = before ? before : "";
  unsetenv("NCCL_NVLS_ENABLE");
  nvls_setting s = apply_nvls_default();
  EXPECT_TRUE(s.set_by_us);
  EXPECT_EQ(std::string(std::getenv("NCCL_NVLS_ENABLE")), "0");
  EXPECT_TRUE(contains(s.message(), "NCCL_NVLS_ENABLE=0 set"));
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  s = apply_nvls_default();
  EXPECT_FALSE(s.set_by_us);
  EXPECT_EQ(s.value, "1");
  EXPECT_EQ(std::string(std::getenv("NCCL_NVLS_ENABLE")), "1");
  EXPECT_TRUE(contains(s.message(), "kept"));
  if (before) setenv("NCCL_NVLS_ENABLE", saved.c_str(), 1);
  else unsetenv("NCCL_NVLS_ENABLE");
}

TEST(MultigpuToolMeasures, SplitIsEvenInRankOrder) {
  const auto s = split_evenly(10, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].begin, 0u);
  EXPECT_EQ(s[0].count, 4u);
  EXPECT_EQ(s[1].begin, 4u);
  EXPECT_EQ(s[1].count, 3u);
  EXPECT_EQ(s[2].begin, 7u);
  EXPECT_EQ(s[2].count, 3u);
  const auto two = split_evenly(std::size_t{1} << 31, 2);
  EXPECT_EQ(two[0].count, std::size_t{1} << 30);
  EXPECT_EQ(two[1].begin, std::size_t{1} << 30);
  const auto tiny = split_evenly(1, 4);  // empty shards are allowed
  EXPECT_EQ(tiny[0].count, 1u);
  EXPECT_EQ(tiny[3].count, 0u);
  EXPECT_EQ(tiny[3].begin, 1u);
  EXPECT_EQ(split_evenly(5, 1)[0].count, 5u);
  EXPECT_TRUE(split_evenly(5, 0).empty());
  for (std::size_t n : {0u, 1u, 7u, 1000003u})
    for (int p : {1, 2, 3, 8}) {
      std::size_t total = 0;
      for (const auto& r : split_evenly(n, p)) {
        EXPECT_EQ(r.begin, total);
        total += r.count;
      }
      EXPECT_EQ(total, n);
    }
}

TEST(MultigpuToolMeasures, BandwidthFollowsNcclTests) {
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(1), 0.0);
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(4), 1.5);
  EXPECT_DOUBLE_EQ(all_reduce_bus_factor(8), 1.75);
  // 256 MiB in 1000 us: 268.435456 GB/s algorithm bandwidth; x 1.5 on 4 ranks.
  EXPECT_DOUBLE_EQ(algbw_gb_per_s(std::size_t{256} << 20, 1000.0), 268.435456);
  EXPECT_DOUBLE_EQ(busbw_gb_per_s(std::size_t{256} << 20, 1000.0, 4), 268.435456 * 1.5);
  EXPECT_DOUBLE_EQ(busbw_gb_per_s(std::size_t{256} << 20, 1000.0, 2), 268.435456);
  EXPECT_DOUBLE_EQ(busbw_gb_per_s(std::size_t{256} << 20, 1000.0, 1), 0.0);
}

TEST(MultigpuToolMeasures, MemoryFit) {
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_EQ(fit_problem({{0, 8 * gib, 80 * gib, "the whole array"}, {1, 4 * gib, 80 * gib, "a shard"}}), "");
  const std::string p = fit_problem({{0, 48 * gib, 79 * gib, "the whole array"}, {1, 79 * gib, 79 * gib, "a shard"}});
  EXPECT_TRUE(contains(p, "GPU 1")) << p;
  EXPECT_TRUE(contains(p, "a shard")) << p;
  EXPECT_TRUE(contains(p, "79 GiB")) << p;
  // The headroom counts: exactly the need free is not enough.
  EXPECT_NE(fit_problem({{0, gib, gib + 1, "x"}}), "");
  EXPECT_EQ(fit_problem({{0, gib, gib + 1, "x"}}, 1), "");
}

TEST(MultigpuToolMeasures, HashAndFormats) {
  std::vector<int> a(1001, 7), b = a;
  EXPECT_EQ(content_hash(a.data(), a.size() * sizeof(int)), content_hash(b.data(), b.size() * sizeof(int)));
  b[1000] = 8;  // in the tail word
  EXPECT_NE(content_hash(a.data(), a.size() * sizeof(int)), content_hash(b.data(), b.size() * sizeof(int)));
  b[1000] = 7;
  b[3] = 6;
  EXPECT_NE(content_hash(a.data(), a.size() * sizeof(int)), content_hash(b.data(), b.size() * sizeof(int)));
  EXPECT_EQ(format_count(std::size_t{1} << 31), "2^31");
  EXPECT_EQ(format_count(1000), "1000");
  EXPECT_EQ(format_bytes(std::size_t{256} << 20), "256 MiB");
  EXPECT_EQ(format_bytes(std::size_t{3} << 29), "1.5 GiB");
  EXPECT_EQ(format_bytes(100), "100 B");
}

namespace {

case_outcome passed(part which, const char* functor, const char* type, std::size_t size, double ratio, int gpus = 2) {
  case_outcome o;
  o.which = {which, functor, type};
  o.n = size;
  o.bytes = size;
  o.gpus = gpus;
  o.status = case_status::pass;
  o.checks.push_back({"every rank equals the reference", true, ""});
  o.settle();
  o.run_to_run_identical = true;
  o.ratio = ratio;
  o.ratio_lo = ratio - 0.01;
  o.ratio_hi = ratio + 0.01;
  return o;
}

const goal_result& goal_named(const std::vector<goal_result>& goals, const std::string& part_of_text) {
  for (const goal_result& g : goals)
    if (contains(g.text, part_of_text)) return g;
  throw std::runtime_error("no goal " + part_of_text);
}

}  // namespace

TEST(MultigpuToolGoals, IssueGoalsAreAllStated) {
  EXPECT_EQ(issue_goals().size(), 8u);  // 5 scalar + 3 all-reduce; run to run is judged separately
  EXPECT_EQ(judge_goals({}, 2, "NVIDIA H200").size(), 9u);
}

TEST(MultigpuToolGoals, PassMissAndTheFigure) {
  const std::size_t n = std::size_t{1} << 31, mib256 = std::size_t{256} << 20;
  const std::vector<case_outcome> outcomes = {passed(part::scalar, "plus", "int32", n, 1.95),
                                              passed(part::scalar, "plus", "float", n, 1.80),
                                              passed(part::all_reduce, "plus", "int32", mib256, 0.91),
                                              passed(part::all_reduce, "argmax", "float_idx32", mib256, 0.89)};
  const auto goals = judge_goals(outcomes, 2, "NVIDIA H200");
  const goal_result& int_sum = goal_named(goals, "scalar reduce plus/int32");
  EXPECT_EQ(int_sum.status, goal_status::pass);
  EXPECT_DOUBLE_EQ(int_sum.measured, 1.95);
  EXPECT_TRUE(contains(int_sum.line(), "PASS")) << int_sum.line();
  EXPECT_TRUE(contains(int_sum.line(), "1.95x")) << int_sum.line();
  EXPECT_FALSE(contains(int_sum.detail, "stated for H200"));
  EXPECT_EQ(goal_named(goals, "scalar reduce plus/float").status, goal_status::miss);
  EXPECT_TRUE(contains(goal_named(goals, "scalar reduce plus/float").detail, "1.80x"));
  EXPECT_EQ(goal_named(goals, "all-reduce plus/int32").status, goal_status::pass);
  EXPECT_EQ(goal_named(goals, "all-reduce argmax").status, goal_status::miss);
  // Not run: NO DATA, saying so.
  const goal_result& affine = goal_named(goals, "affine_compose");
  EXPECT_EQ(affine.status, goal_status::no_data);
  EXPECT_TRUE(contains(affine.detail, "not run")) << affine.detail;
  EXPECT_EQ(goals.back().status, goal_status::pass);  // run to run
}

TEST(MultigpuToolGoals, WrongSizeSkipFailAndGpuCount) {
  const std::size_t n = std::size_t{1} << 31;
  case_outcome skipped = passed(part::scalar, "mean_variance", "moments64", n, NAN);
  skipped.status = case_status::skipped;
  skipped.reason = "GPU 0 would hold too much";
  case_outcome failed = passed(part::scalar, "argmax", "float_idx32", n, 2.5);
  failed.checks.push_back({"run to run (3 runs)", false, "rank 1 differs"});
  failed.run_to_run_identical = false;
  failed.settle();
  const std::vector<case_outcome> outcomes = {passed(part::scalar, "plus", "int32", n / 2, 1.99), skipped, failed};
  const auto goals = judge_goals(outcomes, 2, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(goal_named(goals, "scalar reduce plus/int32").status, goal_status::no_data);  // n = 2^30 is not the goal's
  const goal_result& mv = goal_named(goals, "mean_variance");
  EXPECT_EQ(mv.status, goal_status::no_data);
  EXPECT_TRUE(contains(mv.detail, "GPU 0 would hold too much")) << mv.detail;
  const goal_result& am = goal_named(goals, "scalar reduce argmax");
  EXPECT_EQ(am.status, goal_status::miss);  // a fast but wrong result does not pass
  EXPECT_TRUE(contains(am.detail, "rank 1 differs")) << am.detail;
  const goal_result& same = goals.back();
  EXPECT_EQ(same.status, goal_status::miss);
  EXPECT_TRUE(contains(same.detail, "argmax/float_idx32")) << same.detail;

  // Measured on another machine: judged, and said so.
  const auto h100 = judge_goals({passed(part::scalar, "plus", "int32", n, 1.95)}, 2, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(goal_named(h100, "scalar reduce plus/int32").status, goal_status::pass);
  EXPECT_TRUE(contains(goal_named(h100, "scalar reduce plus/int32").detail, "stated for H200"));

  // One GPU (the smoke test) or four: the goals are stated for two, so NO DATA for every ratio goal.
  for (int gpus : {1, 4}) {
    const auto other = judge_goals({passed(part::scalar, "plus", "int32", n, 1.0, gpus)}, gpus, "NVIDIA H200");
    const goal_result& g = goal_named(other, "scalar reduce plus/int32");
    EXPECT_EQ(g.status, goal_status::no_data);
    EXPECT_TRUE(contains(g.detail, "stated for 2 GPUs, this run used " + std::to_string(gpus))) << g.detail;
    EXPECT_EQ(other.back().status, goal_status::pass);  // run to run is judged on any count
  }
  EXPECT_EQ(judge_goals({}, 2, "NVIDIA H200").back().status, goal_status::no_data);
}

TEST(MultigpuToolGoals, SettleTakesTheFirstFailure) {
  case_outcome o;
  o.status = case_status::pass;
  o.checks = {{"a", true, ""}, {"b", false, "broken"}, {"c", false, "also"}};
  o.settle();
  EXPECT_EQ(o.status, case_status::fail);
  EXPECT_EQ(o.reason, "b: broken");
  case_outcome s;
  s.reason = "does not fit";
  s.settle();  // skipped stays skipped
  EXPECT_EQ(s.status, case_status::skipped);
}

TEST(MultigpuToolGoals, SettleJudgesFromTheChecksNotTheDefaultStatus) {
  case_outcome checked;  // the default status, then checks: as the cases build it
  checked.checks.push_back({"every rank equals the reference", true, ""});
  checked.settle();
  EXPECT_EQ(checked.status, case_status::pass);

  case_outcome failed;
  failed.checks.push_back({"every rank equals the reference", true, ""});
  failed.checks.push_back({"run to run", false, "rank 1 differs"});
  failed.settle();
  EXPECT_EQ(failed.status, case_status::fail);
  EXPECT_EQ(failed.reason, "run to run: rank 1 differs");

  case_outcome nothing;
  nothing.settle();
  EXPECT_EQ(nothing.status, case_status::fail);
  EXPECT_EQ(nothing.reason, "no check ran");

  case_outcome skipped;
  skipped.status = case_status::skipped;
  skipped.reason = "does not fit in GPU 0's memory";
  skipped.settle();
  EXPECT_EQ(skipped.status, case_status::skipped);
}

TEST(MultigpuToolGoals, AFailedCheckStopsTheCaseUntimed) {
  case_outcome ok;
  ok.checks.push_back({"every rank equals the reference", true, ""});
  EXPECT_FALSE(ok.stop_untimed_if_failed());
  EXPECT_TRUE(ok.reason.empty());

  case_outcome wrong;
  wrong.checks.push_back({"every rank equals the reference", false, "rank 1: 3, want 4"});
  EXPECT_TRUE(wrong.stop_untimed_if_failed());
  EXPECT_EQ(wrong.status, case_status::fail);
  EXPECT_EQ(wrong.reason, "not timed: every rank equals the reference: rank 1: 3, want 4");
}
