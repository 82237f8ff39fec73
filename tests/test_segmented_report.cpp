// CPU: segmented.md, its goals and its plots from tests/fixtures/segmented_small.json, a hand-made
// "reducelab-segmented-compare/1" file whose bytes and medians make % of peak and × CUB round numbers (see the
// fixture's note): plus/int32 segmented_reduce at 82.5 % / 60× (uniform:1), 70 % / 40× (uniform:8), a failed
// library row (uniform:32), 85 % / 12× (giant); affine_compose with its CUB row skipped; reduce_by_key plus/int32
// at 1.20× (keys1) and 86 % / 1.20× (uniform:8).
#include "comparisons/segmented/report.hpp"
#include "lab/cli/commands.hpp"
#include "lab/cli/options.hpp"
#include "reducelab/core/error.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef REDUCELAB_FIXTURE_DIR
#error "REDUCELAB_FIXTURE_DIR must name tests/fixtures (set by tests/CMakeLists.txt)"
#endif

namespace fs = std::filesystem;
namespace sr = reducelab::segmented::report;
using nlohmann::json;

namespace {

const std::string fixture = std::string(REDUCELAB_FIXTURE_DIR) + "/segmented_small.json";
const std::string scalar_fixture = std::string(REDUCELAB_FIXTURE_DIR) + "/compare_library.json";

const json& results() {
  static const json r = sr::load_results(fixture);
  return r;
}

/// The one check of (goal, metric, operation, functor/type, layout); fails the test when there is not exactly one.
sr::goal_check check_of(int goal, const std::string& metric, const std::string& op, const std::string& functor,
                        const std::string& type, const std::string& layout) {
  std::vector<sr::goal_check> found;
  for (const auto& k : sr::evaluate_goals(results()))
    if (k.goal == goal && k.metric == metric && k.operation == op && k.functor == functor && k.type == type &&
        k.layout == layout)
      found.push_back(k);
  EXPECT_EQ(found.size(), 1u) << goal << " " << metric << " " << op << " " << functor << "/" << type << " " << layout;
  return found.empty() ? sr::goal_check{} : found.front();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using test_support::scratch_dir;

}  // namespace

TEST(SegmentedReport, LoadsItsSchemaAndRefusesOthers) {
  EXPECT_TRUE(sr::is_segmented_file(fixture));
  EXPECT_FALSE(sr::is_segmented_file(scalar_fixture));
  EXPECT_EQ(results().at("rows").size(), 17u);
  try {
    sr::load_results(scalar_fixture);
    FAIL() << "a scalar results file was accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_TRUE(contains(e.what(), "reducelab-segmented-compare/1")) << e.what();
  }
}

TEST(SegmentedReport, HeaderAndTableRows) {
  const std::string md = sr::render_markdown(results(), "plots");
  EXPECT_TRUE(contains(md, "| Device | NVIDIA H200 (peak 4800.0 GB/s")) << md;
  EXPECT_TRUE(contains(md, "| Commit | abc1234 (Release build")) << md;
  EXPECT_TRUE(contains(md, "| Command | `reducelab segmented compare --ops plus,affine_compose")) << md;
  EXPECT_TRUE(contains(md, "**cold**, flush `clean`")) << md;
  // uniform:1: the library is the fastest backend; 60× CUB with compare's interval and verdict.
  EXPECT_TRUE(contains(md, "| `uniform:1` | 16777216 | `reducelab::segmented_reduce` | 100.0 | 3960.0 | 82.5 % | "
                           "100.0 | 3960.0 | 82.5 % | 60.00× [58.00, 62.00] **win** | 6000 |"))
      << md;
  // uniform:8: a variant is faster than the library, whose own figures stay in their columns.
  EXPECT_TRUE(contains(md, "| `uniform:8` | 2097152 | `block_per_segment` | 64.0 | 4200.0 | 87.5 % | 80.0 | 3360.0 | "
                           "70.0 % | 40.00× [39.00, 41.00] **win** | 3200 |"))
      << md;
  // A failed library row shows its status, not a time.
  EXPECT_TRUE(contains(md, "| `uniform:32` | 524288 | `cub::DeviceSegmentedReduce::Reduce` | 500.0 |")) << md;
  EXPECT_TRUE(contains(md, "| **fail** | — | — | — | 500.0 |")) << md;
  // Non-commutative: no CUB baseline, said in the × CUB and CUB columns.
  EXPECT_TRUE(contains(md, "| 81.0 % | n/a (no CUB baseline) | n/a (no CUB baseline) |")) << md;
  // Layouts in report order within a table; reduce_by_key tables after segmented_reduce ones.
  EXPECT_LT(md.find("| `uniform:32` |"), md.find("| `giant` |"));
  EXPECT_LT(md.find("### `affine_compose`/`affine32`, segmented_reduce"), md.find("### `plus`/`int32`, reduce_by_key"));
  EXPECT_TRUE(contains(md, "| `keys1` | 16777216 | `reducelab::reduce_by_key` | 50.0 |")) << md;
}

TEST(SegmentedReport, PassAndMissWithTheAmount) {
  const auto pass = check_of(1, "% peak", "segmented_reduce", "plus", "int32", "uniform:1");
  EXPECT_EQ(pass.verdict, sr::goal_verdict::pass);
  ASSERT_TRUE(pass.measured);
  EXPECT_NEAR(*pass.measured, 82.5, 1e-9);

  const auto peak_miss = check_of(1, "% peak", "segmented_reduce", "plus", "int32", "uniform:8");
  EXPECT_EQ(peak_miss.verdict, sr::goal_verdict::miss);
  EXPECT_NEAR(peak_miss.shortfall, 10.0, 1e-9);

  const auto ratio_miss = check_of(2, "× CUB", "segmented_reduce", "plus", "int32", "uniform:8");
  EXPECT_EQ(ratio_miss.target, 50.0);
  EXPECT_EQ(ratio_miss.verdict, sr::goal_verdict::miss);
  EXPECT_NEAR(ratio_miss.shortfall, 10.0, 1e-9);

  const auto giant = check_of(2, "× CUB", "segmented_reduce", "plus", "int32", "giant");
  EXPECT_EQ(giant.target, 10.0);
  EXPECT_EQ(giant.verdict, sr::goal_verdict::pass);

  const auto keys1 = check_of(3, "× CUB", "reduce_by_key", "plus", "int32", "keys1");
  EXPECT_EQ(keys1.target, 1.15);
  EXPECT_EQ(keys1.verdict, sr::goal_verdict::pass);
  const auto runs8_peak = check_of(3, "% peak", "reduce_by_key", "plus", "int32", "uniform:8");
  EXPECT_EQ(runs8_peak.verdict, sr::goal_verdict::pass);
  const auto runs8 = check_of(3, "× CUB", "reduce_by_key", "plus", "int32", "uniform:8");
  EXPECT_EQ(runs8.verdict, sr::goal_verdict::miss);
  EXPECT_NEAR(runs8.shortfall, 0.05, 1e-9);

  const std::string goals = sr::render_goals_section(results());
  EXPECT_TRUE(contains(goals, "| 1 | segmented_reduce | `plus/int32` | `uniform:8` | 2^24 | % peak | ≥ 80 % | 70.0 % | "
                              "**MISS** by 10.0 points |"))
      << goals;
  EXPECT_TRUE(contains(goals, "| ≥ 50× | 40.00× [39.00, 41.00] | **MISS** by 10.00× |")) << goals;
  EXPECT_TRUE(contains(goals, "| ≥ 1.25× | 1.20× [1.18, 1.22] | **MISS** by 0.05× |")) << goals;
  EXPECT_TRUE(contains(goals, "| `giant` | 2^24 | × CUB | ≥ 10× | 12.00× [11.50, 12.50] | PASS |")) << goals;
}

TEST(SegmentedReport, TargetNeedsIsTheShareOfPeakTheRatioAsksFor) {
  // uniform:8: 50x CUB's 3200 µs over 268.8 MB at the fixture's 4800 GB/s peak: 64 µs, 87.5 % of peak.
  const auto ratio = check_of(2, "× CUB", "segmented_reduce", "plus", "int32", "uniform:8");
  ASSERT_TRUE(ratio.target_needs_pct);
  EXPECT_NEAR(*ratio.target_needs_pct, 87.5, 1e-9);
  // By key, runs of 8: 1.25x CUB's 48 µs over 165.12 MB: 89.58 % of peak.
  const auto runs8 = check_of(3, "× CUB", "reduce_by_key", "plus", "int32", "uniform:8");
  ASSERT_TRUE(runs8.target_needs_pct);
  EXPECT_NEAR(*runs8.target_needs_pct, 1.25 * 165.12e6 / (4800e3 * 48.0) * 100.0, 1e-9);
  // % of peak lines and lines without a timed CUB row have none.
  EXPECT_FALSE(check_of(1, "% peak", "segmented_reduce", "plus", "int32", "uniform:8").target_needs_pct);
  EXPECT_FALSE(check_of(2, "× CUB", "segmented_reduce", "affine_compose", "affine32", "uniform:1").target_needs_pct);
  std::string goals = sr::render_goals_section(results());
  EXPECT_TRUE(contains(goals, "| ≥ 50× | 40.00× [39.00, 41.00] | **MISS** by 10.00× | 87.5 % |")) << goals;
  EXPECT_FALSE(contains(goals, "beyond the peak")) << goals;

  // A faster CUB (2000 µs) puts 50x at 40 µs: 140 % of peak, which the line and the count say.
  json faster = results();
  for (auto& r : faster["rows"])
    if (r["operation"] == "segmented_reduce" && r["layout"] == "uniform:8" &&
        r["backend"] == "cub::DeviceSegmentedReduce::Reduce")
      r["median_us"] = 2000.0;
  goals = sr::render_goals_section(faster);
  EXPECT_TRUE(contains(goals, "| **MISS** by 10.00× | 140.0 %: beyond the peak |")) << goals;
  EXPECT_TRUE(contains(goals, "1 MISS line asks for more than the device's peak")) << goals;
  // Without the device's peak there is nothing to say.
  json no_peak = results();
  no_peak["device"].erase("peak_gb_per_s");
  for (const auto& k : sr::evaluate_goals(no_peak)) EXPECT_FALSE(k.target_needs_pct) << k.layout;
}

TEST(SegmentedReport, PlainReadSetsEachLineBesideOnePassOverTheSameBytes) {
  // The fixture predates the plain read: every line shows a dash and the summary says nothing of it.
  EXPECT_FALSE(check_of(1, "% peak", "segmented_reduce", "plus", "int32", "uniform:8").plain_read_pct);
  std::string goals = sr::render_goals_section(results());
  EXPECT_FALSE(contains(goals, "than the plain read")) << goals;
  EXPECT_TRUE(contains(goals, "| **MISS** by 10.0 points | — | — |")) << goals;

  // uniform:8's library row read at 70 % (40x CUB, Target needs 87.5 %); a plain read of its bytes in the same
  // rounds at 75 %: both its lines ask for more than that, and the count says so.
  const auto with_plain_read = [](double pct) {
    json r = results();
    for (auto& row : r["rows"])
      if (row["operation"] == "segmented_reduce" && row["layout"] == "uniform:8" &&
          row["backend"] == "reducelab::segmented_reduce")
        row["plain_read"] = {{"median_us", 70.0}, {"pct_of_peak", pct}};
    return r;
  };
  json slow_read = with_plain_read(75.0);
  const auto peak_line = sr::evaluate_goals(slow_read);
  std::size_t lines = 0;
  for (const auto& k : peak_line) {
    if (k.operation != "segmented_reduce" || k.layout != "uniform:8" || k.functor != "plus") continue;
    ++lines;
    ASSERT_TRUE(k.plain_read_pct) << k.metric;
    EXPECT_DOUBLE_EQ(*k.plain_read_pct, 75.0);
  }
  EXPECT_EQ(lines, 2u);  // % peak and × CUB: both from the library row
  goals = sr::render_goals_section(slow_read);
  EXPECT_TRUE(contains(goals, "| ≥ 80 % | 70.0 % | **MISS** by 10.0 points | — | 75.0 %: asked above it |")) << goals;
  EXPECT_TRUE(contains(goals, "| **MISS** by 10.00× | 87.5 % | 75.0 %: asked above it |")) << goals;
  EXPECT_TRUE(contains(goals, "2 MISS lines ask for more than the plain read of the same bytes")) << goals;

  // A plain read at 95 %: above both asks, so neither line is flagged and the sentence goes.
  goals = sr::render_goals_section(with_plain_read(95.0));
  EXPECT_TRUE(contains(goals, "| **MISS** by 10.0 points | — | 95.0 % |")) << goals;
  EXPECT_TRUE(contains(goals, "| **MISS** by 10.00× | 87.5 % | 95.0 % |")) << goals;
  EXPECT_FALSE(contains(goals, "than the plain read")) << goals;
}

TEST(SegmentedReport, MissingRowsAreNoData) {
  const auto failed = check_of(1, "% peak", "segmented_reduce", "plus", "int32", "uniform:32");
  EXPECT_EQ(failed.verdict, sr::goal_verdict::no_data);
  EXPECT_TRUE(contains(failed.note, "reducelab::segmented_reduce fail")) << failed.note;
  const auto absent_layout = check_of(2, "× CUB", "segmented_reduce", "plus", "int32", "uniform:2^20");
  EXPECT_EQ(absent_layout.verdict, sr::goal_verdict::no_data);
  EXPECT_FALSE(absent_layout.measured);
  const auto runs256 = check_of(3, "× CUB", "reduce_by_key", "plus", "int32", "uniform:256");
  EXPECT_EQ(runs256.verdict, sr::goal_verdict::no_data);
  // A goal-set case the run lacks altogether is one NO DATA line per goal, not a silent gap.
  const auto absent_case = check_of(1, "% peak", "segmented_reduce", "plus", "double", "");
  EXPECT_EQ(absent_case.verdict, sr::goal_verdict::no_data);
  EXPECT_EQ(absent_case.n, 0u);
  // Deleting the row that passed turns its line into NO DATA, never a pass.
  json cut = results();
  auto& rows = cut["rows"];
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [](const json& r) {
                              return r["layout"] == "uniform:1" && r["operation"] == "segmented_reduce" &&
                                     r["functor"] == "plus" && r["backend"] == "reducelab::segmented_reduce";
                            }),
             rows.end());
  std::size_t judged = 0;
  for (const auto& k : sr::evaluate_goals(cut)) {
    if (k.operation != "segmented_reduce" || k.functor != "plus" || k.type != "int32" || k.layout != "uniform:1")
      continue;
    ++judged;
    EXPECT_EQ(k.verdict, sr::goal_verdict::no_data) << k.goal << " " << k.metric;
  }
  EXPECT_EQ(judged, 2u);  // goal 1 (% peak) and goal 2 (× CUB)
  EXPECT_TRUE(contains(sr::render_goals_section(cut), "NO DATA: reducelab::segmented_reduce not in this run"));
}

TEST(SegmentedReport, NonCommutativeLinesSayNoBaselineAndNeverPass) {
  const auto line = check_of(2, "× CUB", "segmented_reduce", "affine_compose", "affine32", "uniform:1");
  EXPECT_EQ(line.verdict, sr::goal_verdict::no_baseline);
  EXPECT_TRUE(contains(line.note, "non-commutative")) << line.note;
  std::size_t lines = 0;
  for (const auto& k : sr::evaluate_goals(results()))
    if (k.goal == 2 && k.functor == "affine_compose") {
      ++lines;
      EXPECT_NE(k.verdict, sr::goal_verdict::pass) << k.layout;
      EXPECT_EQ(k.verdict, sr::goal_verdict::no_baseline) << k.layout;
    }
  EXPECT_EQ(lines, 8u);  // uniform 1 … 2^20 and giant
  // Its peak goal is judged like any other functor's: 81 % passes 80 %.
  EXPECT_EQ(check_of(1, "% peak", "segmented_reduce", "affine_compose", "affine32", "uniform:1").verdict,
            sr::goal_verdict::pass);
  EXPECT_TRUE(contains(sr::render_goals_section(results()),
                       "NO BASELINE: cub::DeviceSegmentedReduce does not support non-commutative operators"));
}

TEST(SegmentedReport, PlotsPlannedAndWritten) {
  const auto plots = sr::plan_plots(results());
  std::vector<std::string> names;
  for (const auto& p : plots) names.push_back(p.file_name);
  const std::vector<std::string> expected = {
      "segmented_gbps_segmented_reduce_plus_int32_2_24.svg",
      "segmented_speedup_segmented_reduce_plus_int32_2_24.svg",
      "segmented_gbps_segmented_reduce_affine_compose_affine32_2_24.svg",  // no speedup chart: CUB skipped
      "segmented_gbps_reduce_by_key_plus_int32_2_24.svg",
      "segmented_speedup_reduce_by_key_plus_int32_2_24.svg"};
  EXPECT_EQ(names, expected);

  scratch_dir dir;
  sr::write_report(results(), dir.path.string());
  for (const auto& name : expected) EXPECT_TRUE(fs::exists(dir.path / "plots" / name)) << name;
  std::ifstream md(dir.path / "segmented.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_TRUE(contains(text.str(), "(plots/segmented_speedup_segmented_reduce_plus_int32_2_24.svg)"));

  std::ifstream svg(dir.path / "plots" / expected[1]);
  std::stringstream chart;
  chart << svg.rdbuf();
  // One line per non-reference backend timed on a uniform layout (the library and warp_per_segment at length 1,
  // block_per_segment at 8), the 1× line named after CUB; the failed uniform:32 row draws nothing.
  EXPECT_TRUE(contains(chart.str(), "<title>reducelab::segmented_reduce</title>"));
  EXPECT_TRUE(contains(chart.str(), "<title>warp_per_segment</title>"));
  EXPECT_TRUE(contains(chart.str(), "<title>block_per_segment</title>"));
  EXPECT_FALSE(contains(chart.str(), "<title>cub::DeviceSegmentedReduce::Reduce</title>"));
  EXPECT_TRUE(contains(chart.str(), "1× = cub::DeviceSegmentedReduce::Reduce"));
  // The scalar report's chart (comparisons/svg_chart.hpp) over segment length, in its styles: the library thick and
  // solid in its teal; the ladder's variants thin, from the palette.
  EXPECT_TRUE(contains(chart.str(), "uniform segment length (log scale)"));
  EXPECT_TRUE(contains(chart.str(), "<title>reducelab::segmented_reduce</title>\n<polyline fill=\"none\" "
                                    "stroke=\"#00756f\" stroke-width=\"3.2\" stroke-linejoin"));
  EXPECT_TRUE(contains(chart.str(), "<title>warp_per_segment</title>\n<polyline fill=\"none\" stroke=\"#1f77b4\" "
                                    "stroke-width=\"1.8\" stroke-linejoin"));
  for (const auto& name : expected) {
    std::ifstream f(dir.path / "plots" / name);
    std::stringstream doc;
    doc << f.rdbuf();
    const std::string svg = doc.str();
    const auto occurrences = [&](const std::string& what) {
      std::size_t k = 0;
      for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++k;
      return k;
    };
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << name;
    EXPECT_EQ(occurrences("<g>") + occurrences("<g "), occurrences("</g>")) << name;
    EXPECT_EQ(occurrences("<text"), occurrences("</text>")) << name;
    EXPECT_EQ(svg.find("nan"), std::string::npos) << name;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << name;
  }
}

TEST(SegmentedReport, ReportCommandDispatchesOnTheSchema) {
  scratch_dir dir;
  const std::string out_dir = dir.path.string();
  const char* argv[] = {"reducelab", "report", fixture.c_str(), "--out", out_dir.c_str()};
  const auto o = reducelab::cli::parse_options(5, argv);
  std::ostringstream out;
  EXPECT_EQ(reducelab::cli::run_command(o, out), 0);
  EXPECT_TRUE(contains(out.str(), "segmented.md and 5 plot(s)")) << out.str();
  EXPECT_TRUE(fs::exists(dir.path / "segmented.md"));
  EXPECT_FALSE(fs::exists(dir.path / "report.md"));
}
