// CPU: the parts of the timing engine that need no GPU: the interleaved schedule, the clock guard's flags, the
// flush option, merging a split sweep, the report's use of confirmation rounds and intervals, and hot <= cold on
// a recorded run.
#include "comparisons/report.hpp"
#include "comparisons/timing/clock_guard.hpp"
#include "comparisons/timing/engine.hpp"
#include "comparisons/timing/l2_flush.hpp"
#include "reducelab/core/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

using nlohmann::json;
namespace rt = reducelab::timing;
namespace rr = reducelab::report;

TEST(Schedule, EveryRoundTakesEveryBackendOnceInAShuffledOrder) {
  const auto s = rt::interleaved_schedule(6, 40, 7);
  ASSERT_EQ(s.size(), 40u);
  std::set<std::vector<std::size_t>> distinct;
  std::vector<std::size_t> first_count(6, 0);
  for (const auto& round : s) {
    std::vector<std::size_t> sorted = round;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::size_t> expected(6);
    std::iota(expected.begin(), expected.end(), std::size_t{0});
    EXPECT_EQ(sorted, expected);  // a permutation: sample i of every backend before sample i + 1 of any
    distinct.insert(round);
    ++first_count[round.front()];
  }
  EXPECT_GT(distinct.size(), 30u);  // 720 orders: 40 rounds repeat few of them
  for (std::size_t k : first_count) EXPECT_GT(k, 0u);  // nobody is always first (or never)
}

TEST(Schedule, ReproducibleFromTheSeed) {
  EXPECT_EQ(rt::interleaved_schedule(5, 10, 3), rt::interleaved_schedule(5, 10, 3));
  EXPECT_NE(rt::interleaved_schedule(5, 10, 3), rt::interleaved_schedule(5, 10, 4));
  EXPECT_TRUE(rt::interleaved_schedule(0, 3, 1).front().empty());
}

TEST(ClockGuard, FlagsGroupsBelowTheRunsNorm) {
  // A run settled at 1980 MHz SM / 2619 MHz memory; one group dropped to 1500 MHz SM, one to 1593 MHz memory.
  const std::vector<rt::clock_reading> lowest = {
      {1980, 2619}, {1965, 2619}, {1500, 2619}, {1980, 1593}, {1980, 2619}};
  EXPECT_EQ(rt::flag_low_clocks(lowest), (std::vector<bool>{false, false, true, true, false}));
  EXPECT_TRUE(rt::flag_low_clocks({}).empty());
  EXPECT_EQ(rt::flag_low_clocks({{1000, 1000}}), (std::vector<bool>{false}));  // its own norm
}

TEST(Flush, KindsParseAndBadOnesAreNamed) {
  EXPECT_EQ(rt::parse_flush_kind("clean"), rt::flush_kind::clean);
  EXPECT_EQ(rt::parse_flush_kind("memset"), rt::flush_kind::memset);
  EXPECT_STREQ(rt::to_string(rt::flush_kind::clean), "clean");
  try {
    rt::parse_flush_kind("dirty");
    FAIL() << "dirty was accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("'dirty'"), std::string::npos);
  }
}

namespace {

json row(const std::string& variant, const std::string& family, std::uint64_t n, double median) {
  return {{"variant", variant},
          {"family", family},
          {"ladder_step", family == "custom" ? 8 : 0},
          {"functor", "plus"},
          {"type", "int32"},
          {"value_bytes", 4},
          {"n", n},
          {"bytes_read", n * 4},
          {"mode", "cold"},
          {"validation", {{"status", "PASS"}, {"bounded", false}, {"error", 0.0}, {"bound", 0.0}, {"message", ""}}},
          {"timed", true},
          {"samples", 25},
          {"median_us", median},
          {"p10_us", median * 0.98},
          {"p90_us", median * 1.02},
          {"min_us", median * 0.97},
          {"mean_us", median},
          {"stddev_us", 0.1}};
}

json run_with(std::vector<json> rows) {
  json r = {{"schema", "reducelab-compare-1"},
            {"commit", "abc"},
            {"command_line", "reducelab compare"},
            {"device", {{"name", "NVIDIA H100 80GB HBM3"}, {"peak_gb_per_s", 3352.3}}},
            {"timing", {{"method_version", 2}, {"samples", 25}, {"flush", "clean"}}}};
  r["rows"] = rows;
  return r;
}

}  // namespace

TEST(Merge, PartsOfASweepBecomeOneRun) {
  json a = run_with({row("many_per_thread", "custom", 1024, 5.0), row("cub::DeviceReduce::Reduce", "cub", 1024, 6.0)});
  a["command_line"] = "reducelab compare --full --ops plus";
  a["confirmations"] = json::array({{{"functor", "plus"}, {"n", 1024}}});
  json b = run_with({row("many_per_thread", "custom", 4096, 9.0)});
  b["command_line"] = "reducelab compare --full --ops argmax";
  const json m = rr::merge_results({a, b}, {"a.json", "b.json"});
  EXPECT_EQ(m["rows"].size(), 3u);
  EXPECT_EQ(m["confirmations"].size(), 1u);
  EXPECT_EQ(m["merged_from"], 2);
  EXPECT_EQ(m["command_line"], "reducelab compare --full --ops plus + reducelab compare --full --ops argmax");
}

TEST(Merge, IncomparablePartsAreRefusedByName) {
  const json a = run_with({row("many_per_thread", "custom", 1024, 5.0)});
  auto error_of = [&](const json& b) {
    try {
      rr::merge_results({a, b}, {"a.json", "b.json"});
    } catch (const reducelab::usage_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  json other_commit = a;
  other_commit["commit"] = "def";
  other_commit["rows"] = json::array();
  EXPECT_NE(error_of(other_commit).find("b.json has commit 'def'"), std::string::npos);
  json other_device = other_commit;
  other_device["commit"] = "abc";
  other_device["device"]["name"] = "NVIDIA H200";
  EXPECT_NE(error_of(other_device).find("another device"), std::string::npos);
  json other_timing = run_with({});
  other_timing["timing"]["flush"] = "memset";
  EXPECT_NE(error_of(other_timing).find("other timing settings"), std::string::npos);
  EXPECT_NE(error_of(a).find("repeats a row"), std::string::npos);  // the same row twice
}

TEST(ReportSummary, UsesTheConfirmationRoundAndShowsIntervals) {
  json best = row("single_pass_last_block", "custom", 1 << 20, 9.0);
  best["speedup_vs_thrust"] = 2.6;
  best["speedup_vs_thrust_ci"] = {2.5, 2.7};
  best["verdict_vs_thrust"] = "win";
  json slower = row("many_per_thread", "custom", 1 << 20, 9.5);
  json cpu = row("cpu::parallel_reduce", "cpu", 1 << 20, 120.0);
  cpu["threads"] = 16;
  json r = run_with({best, slower, row("cub::DeviceReduce::Reduce", "cub", 1 << 20, 10.0),
                     row("thrust::reduce", "thrust", 1 << 20, 23.4), cpu});
  // The confirmation round measured the winner again: 9.2 µs against CUB's 10.3, interval [1.08, 1.16].
  r["confirmations"] = json::array({{{"functor", "plus"},
                                     {"type", "int32"},
                                     {"n", 1 << 20},
                                     {"mode", "cold"},
                                     {"variant", "single_pass_last_block"},
                                     {"reference", "cub::DeviceReduce::Reduce"},
                                     {"custom_median_us", 9.2},
                                     {"reference_median_us", 10.3},
                                     {"ratio", 10.3 / 9.2},
                                     {"ratio_ci", {1.08, 1.16}},
                                     {"verdict", "win"}}});
  const std::string md = rr::render_markdown(r, "plots");
  const auto at = md.find("`single_pass_last_block`");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string line = md.substr(at, md.find('\n', at) - at);
  EXPECT_NE(line.find("| 9.20 |"), std::string::npos) << line;                    // the confirmation's time
  EXPECT_NE(line.find("| 10.3 | 1.12× [1.08, 1.16] **win**"), std::string::npos) << line;
  EXPECT_NE(line.find("| 23.4 | 2.60× [2.50, 2.70] **win**"), std::string::npos) << line;
  EXPECT_NE(line.find("120.0 (16 threads)"), std::string::npos) << line;
  EXPECT_NE(md.find("1 win(s), 0 loss(es), 0 tie(s)"), std::string::npos);
  EXPECT_NE(md.find("**Method.**"), std::string::npos);
}

TEST(ReportSummary, AnIntervalThatIncludesOneIsATie) {
  json r = run_with({row("many_per_thread", "custom", 1024, 5.0), row("cub::DeviceReduce::Reduce", "cub", 1024, 5.1)});
  r["confirmations"] = json::array({{{"functor", "plus"},
                                     {"type", "int32"},
                                     {"n", 1024},
                                     {"mode", "cold"},
                                     {"variant", "many_per_thread"},
                                     {"custom_median_us", 5.0},
                                     {"reference_median_us", 5.1},
                                     {"ratio", 1.02},
                                     {"ratio_ci", {0.97, 1.06}},
                                     {"verdict", "tie"}}});
  const std::string md = rr::render_markdown(r, "plots");
  EXPECT_NE(md.find("1.02× [0.97, 1.06] tie"), std::string::npos) << md;
  EXPECT_NE(md.find("0 win(s), 0 loss(es), 1 tie(s)"), std::string::npos);
}

// The recorded `--mode both` run (H100, `bash scripts/device_run.sh both`, commit 40a45a3): with the stream held
// and L2 flushed clean, hot is never slower than cold beyond the noise, for every backend, the host-clocked ones
// included. Under the old method hot was slower than cold for 74 of
// 75 rows at 2^12 (the launch latency fell inside hot samples only).
TEST(HotCold, HotIsNeverSlowerThanColdInTheRecordedRun) {
  const json r = rr::load_results(std::string(REDUCELAB_FIXTURE_DIR) + "/compare_both_h100.json");
  std::map<std::tuple<std::string, std::string, std::string, std::uint64_t>, const json*> cold;
  for (const auto& row : r["rows"])
    if (row["timed"].get<bool>() && row["mode"] == "cold")
      cold[{row["variant"], row["functor"], row["type"], row["n"].get<std::uint64_t>()}] = &row;
  std::size_t pairs = 0, event_pairs = 0, event_hot_faster = 0;
  for (const auto& hot : r["rows"]) {
    if (!hot["timed"].get<bool>() || hot["mode"] != "hot") continue;
    const auto it = cold.find({hot["variant"], hot["functor"], hot["type"], hot["n"].get<std::uint64_t>()});
    if (it == cold.end()) continue;
    const json& c = *it->second;
    ++pairs;
    if (hot["clock"].get<std::string>().rfind("cuda events", 0) == 0) {
      ++event_pairs;
      event_hot_faster += hot["median_us"].get<double>() < c["median_us"].get<double>();
    }
    // Noise: within 5 % of the cold median, or the hot p10 not above the cold p90.
    const bool ok = hot["median_us"].get<double>() <= 1.05 * c["median_us"].get<double>() ||
                    hot["p10_us"].get<double>() <= c["p90_us"].get<double>();
    EXPECT_TRUE(ok) << hot["variant"] << " " << hot["functor"] << "/" << hot["type"] << " n=" << hot["n"] << ": hot "
                    << hot["median_us"] << " µs, cold " << c["median_us"] << " µs (p90 " << c["p90_us"] << ")";
  }
  EXPECT_GE(pairs, 500u);  // the fixture holds a real sweep, not a handful of rows
  EXPECT_GE(event_hot_faster, event_pairs * 99 / 100) << event_hot_faster << " of " << event_pairs;
}

TEST(ReportMethods, TheBeforeAfterTableComesFromTheRunsOwnMeasurement) {
  json r = run_with({row("many_per_thread", "custom", 1024, 5.0)});
  auto regime = [](const char* name, json median) {
    return json{{"regime", name},
                {"rows", json::array({{{"work", "empty kernel"}, {"median_us", 3.0}, {"p10_us", 2.9}, {"p90_us", 3.2}},
                                      {{"work", "cub::DeviceReduce::Sum int32 2^24"},
                                       {"median_us", median},
                                       {"p10_us", 28.5},
                                       {"p90_us", 30.4}}})}};
  };
  r["method_check"] = {{"samples", 50},
                       {"regimes", json::array({regime("old hot (idle stream)", 29.3), regime("new hot (held)", nullptr)})}};
  const std::string md = rr::render_markdown(r, "plots");
  const auto at = md.find("## Timing method: old against new");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_LT(at, md.find("## Summary"));  // the method comes before the numbers it qualifies
  EXPECT_NE(md.find("| old hot (idle stream) | new hot (held) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| cub::DeviceReduce::Sum int32 2^24 | 29.30 [28.50, 30.40] | not measured (input > L2/2) |"),
            std::string::npos)
      << md;
  r.erase("method_check");
  EXPECT_EQ(rr::render_markdown(r, "plots").find("## Timing method"), std::string::npos);
}
