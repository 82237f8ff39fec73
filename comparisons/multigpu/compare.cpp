// `reducelab-multigpu compare`: open a group of N GPUs, run every selected case (validate, then time with the shared
// engine, hot: at these sizes L2 holds nothing of a sample's data anyway), print a table and issue 14's goals, and
// write DIR/multigpu.json (with provenance) and DIR/multigpu.csv.
#include "comparisons/multigpu/compare.hpp"

#include "comparisons/multigpu/goals.hpp"
#include "comparisons/multigpu/measures.hpp"
#include "comparisons/multigpu/session.hpp"
#include "comparisons/text_file.hpp"
#include "comparisons/provenance.hpp"
#include "comparisons/timing/clock_guard.hpp"
#include "comparisons/timing/engine.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/multigpu/error.hpp"

#include <nccl.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>

namespace reducelab::multigpu::tool {

namespace {

using json = nlohmann::ordered_json;

std::string fixed(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

/// A JSON number, or null for NaN (JSON has no NaN).
json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

std::string csv_quoted(const std::string& text) {
  std::string q = "\"";
  for (const char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string size_label(const case_outcome& o) {
  return o.which.which == part::scalar ? "n=" + format_count(o.n) : format_bytes(o.bytes);
}

std::string result_text(const case_outcome& o) {
  if (!std::isfinite(o.ratio)) return "";
  const std::string ci = "[" + fixed(o.ratio_lo, 2) + ", " + fixed(o.ratio_hi, 2) + "]";
  if (o.which.which == part::scalar) return "speedup " + fixed(o.ratio, 2) + "x " + ci;
  return "busbw " + fixed(o.ours_busbw, 1) + " vs " + fixed(o.baseline_busbw, 1) + " GB/s, " + fixed(o.ratio, 2) +
         "x " + ci;
}

json timed_json(const timed_result& t) {
  if (t.name.empty()) return nullptr;
  return {{"name", t.name},           {"clock", t.clock},         {"median_us", number(t.median_us)},
          {"p10_us", number(t.p10_us)}, {"p90_us", number(t.p90_us)}, {"samples_us", t.us}};
}

json row_json(const case_outcome& o) {
  json row = {{"part", to_string(o.which.which)},
              {"functor", o.which.functor},
              {"type", o.which.type},
              {"n", o.n},
              {"bytes", o.bytes},
              {"gpus", o.gpus},
              {"status", to_string(o.status)}};
  if (!o.reason.empty()) row["reason"] = o.reason;
  row["run_to_run_identical"] = o.run_to_run_identical;
  row["checks"] = json::array();
  for (const check_result& c : o.checks) row["checks"].push_back({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}});
  if (!o.notes.empty()) row["notes"] = o.notes;
  row["ours"] = timed_json(o.ours);
  row["baseline"] = timed_json(o.baseline);
  const char* ratio_name = o.which.which == part::scalar ? "speedup_vs_one_gpu" : "busbw_ratio_vs_nccl";
  row[ratio_name] = number(o.ratio);
  row[std::string(ratio_name) + "_interval"] = {number(o.ratio_lo), number(o.ratio_hi)};
  if (o.which.which == part::all_reduce) {
    row["algbw_gb_per_s"] = {{"ours", number(o.ours_algbw)}, {"baseline", number(o.baseline_algbw)}};
    row["busbw_gb_per_s"] = {{"ours", number(o.ours_busbw)}, {"baseline", number(o.baseline_busbw)}};
  }
  return row;
}

void print_row(std::ostream& out, const case_outcome& o) {
  const std::string validation = o.status == case_status::pass ? "pass"
                                 : o.status == case_status::fail ? "FAIL: " + o.reason
                                                                 : "skipped: " + o.reason;
  out << std::left << std::setw(11) << to_string(o.which.which) << std::setw(26) << o.which.label() << std::setw(10)
      << size_label(o) << std::right << std::setw(5) << o.gpus << std::setw(12) << fixed(o.ours.median_us, 1)
      << std::setw(12) << fixed(o.baseline.median_us, 1) << "  " << std::left << std::setw(46) << result_text(o)
      << validation << "\n";
  for (const std::string& note : o.notes) out << "           note: " << note << "\n";
}

}  // namespace

int run_compare(const options& o, std::ostream& out, const std::string& command_line) {
  if (const std::string why = why_no_device(); !why.empty())
    throw usage_error("'reducelab-multigpu compare' needs a GPU: " + why);
  const int ranks = resolve_gpu_count(o.gpus, device_count());
  const nvls_setting nvls = apply_nvls_default();  // before the first NCCL call
  out << nvls.message() << "\n";

  std::vector<int> devices;
  for (int r = 0; r < ranks; ++r) devices.push_back(r);
  std::vector<device_info> infos;
  std::vector<std::unique_ptr<timing::clock_guard>> clocks;
  for (const int d : devices) {
    CUDA_TRY(cudaSetDevice(d));
    infos.push_back(current_device());
    clocks.push_back(std::make_unique<timing::clock_guard>(d));
  }
  CUDA_TRY(cudaSetDevice(devices[0]));

  int nccl_version = 0;
  REDUCELAB_NCCL_TRY(ncclGetVersion(&nccl_version));
  const std::shared_ptr<local_group> group = open_group(devices);
  stream_owner stream0;
  rank_streams streams(devices, stream0.get());
  timing::engine engine(stream0.get(), static_cast<std::size_t>(infos[0].l2_bytes));
  timing::measurement_plan plan;
  plan.cache = timing::cache_state::hot;
  plan.hold = true;
  plan.rounds = o.rounds;
  plan.seed = o.seed;
  session s{o, *group, streams, engine, plan};

  out << "reducelab-multigpu compare: " << ranks << " GPU(s):";
  for (const device_info& d : infos) out << " [" << d.ordinal << "] " << d.name;
  out << "; NCCL " << nccl_version << "; clock: "
      << (o.clock == clock_choice::events ? "CUDA events on GPU 0 (held stream), fork/join across the ranks"
                                          : "host clock around calls that wait for every rank")
      << "; hot; " << plan.warmup_runs << " warm-up + " << plan.rounds << " interleaved rounds\n";
  if (ranks == 1)
    out << "one GPU: the group has one rank (a smoke test); the goals, stated for 2 GPUs, will read NO DATA\n";
  out << std::left << std::setw(11) << "part" << std::setw(26) << "case" << std::setw(10) << "size" << std::right
      << std::setw(5) << "GPUs" << std::setw(12) << "ours us" << std::setw(12) << "base us" << "  " << std::left
      << std::setw(46) << "speedup / bus bandwidth [95% CI]" << "validation\n";

  std::vector<case_outcome> outcomes;
  const auto run_case = [&](const case_name& c, std::size_t size) {
    case_outcome result;
    try {
      result = c.which == part::scalar ? run_scalar_case(s, c, size) : run_all_reduce_case(s, c, size);
    } catch (const std::exception& e) {
      result = case_outcome{};
      result.which = c;
      result.gpus = ranks;
      (c.which == part::scalar ? result.n : result.bytes) = size;
      result.status = case_status::fail;
      result.reason = std::string("error: ") + e.what();
    }
    print_row(out, result);
    outcomes.push_back(std::move(result));
  };
  for (const case_name& c : o.cases)
    if (c.which == part::scalar)
      for (const std::size_t n : o.sizes) run_case(c, n);
  for (const case_name& c : o.cases)
    if (c.which == part::all_reduce)
      for (const std::size_t b : o.bytes) run_case(c, b);

  const std::vector<goal_result> goals = judge_goals(outcomes, ranks, infos[0].name);
  out << "\nGoals (issue 14; medians, with the 95 % paired bootstrap interval):\n";
  for (const goal_result& g : goals) out << "  " << g.line() << "\n";

  json results;
  results["schema"] = "reducelab-multigpu-compare/1";
  results["created_utc"] = provenance::utc_now();
  results["command_line"] = command_line;
  results["commit"] = provenance::commit_id();
  results["build"] = provenance::build_json();
  results["devices"] = json::array();
  for (std::size_t i = 0; i < infos.size(); ++i)
    results["devices"].push_back(json(provenance::device_json(infos[i], *clocks[i])));
  json p2p = json::array();
  for (const int a : devices) {
    json row = json::array();
    for (const int b : devices) {
      int can = 0;
      if (a != b) CUDA_TRY(cudaDeviceCanAccessPeer(&can, a, b));
      row.push_back(a == b ? true : can != 0);
    }
    p2p.push_back(row);
  }
  results["peer_access"] = p2p;
  results["nccl"] = {{"version", nccl_version}, {"NCCL_NVLS_ENABLE", nvls.value}, {"set_by_tool", nvls.set_by_us}};
  results["timing"] = {
      {"engine", "ReduceLab timing engine (comparisons/timing): interleaved rounds, shuffled each round"},
      {"cache", "hot"},
      {"clock", to_string(o.clock)},
      {"clock_method", o.clock == clock_choice::events
                           ? "CUDA events on GPU 0's held stream; fork (event on GPU 0, every rank's stream waits) "
                             "and join (every rank records, GPU 0 waits) bracket the work on every GPU"
                           : "host steady_clock around a call that returns once every rank's stream is done"},
      {"warmup_runs", plan.warmup_runs},
      {"rounds", plan.rounds},
      {"seed", o.seed},
      {"confidence", 0.95},
      {"bandwidth", "algbw = bytes / time; busbw = algbw x 2(N-1)/N (nccl-tests' all-reduce convention)"}};
  results["gpus"] = ranks;
  results["piece_bytes"] = o.piece_bytes;
  results["all_reduce_path"] = to_string(o.path);
  results["rows"] = json::array();
  for (const case_outcome& c : outcomes) results["rows"].push_back(row_json(c));
  results["goals"] = json::array();
  for (const goal_result& g : goals)
    results["goals"].push_back({{"goal", g.text},
                                {"status", to_string(g.status)},
                                {"measured", number(g.measured)},
                                {"interval", {number(g.lo), number(g.hi)}},
                                {"detail", g.detail}});

  std::ostringstream csv;
  csv << "part,functor,type,n,bytes,gpus,status,ours,ours_median_us,ours_p10_us,ours_p90_us,baseline,"
         "baseline_median_us,baseline_p10_us,baseline_p90_us,ratio,ratio_lo,ratio_hi,ours_busbw_gb_per_s,"
         "baseline_busbw_gb_per_s,run_to_run_identical,reason\n";
  for (const case_outcome& c : outcomes) {
    const auto num = [](double x) { return std::isfinite(x) ? fixed(x, 4) : std::string(); };
    csv << to_string(c.which.which) << "," << c.which.functor << "," << c.which.type << "," << c.n << "," << c.bytes
        << "," << c.gpus << "," << to_string(c.status) << "," << csv_quoted(c.ours.name) << ","
        << num(c.ours.median_us) << "," << num(c.ours.p10_us) << "," << num(c.ours.p90_us) << ","
        << csv_quoted(c.baseline.name) << "," << num(c.baseline.median_us) << "," << num(c.baseline.p10_us) << ","
        << num(c.baseline.p90_us) << "," << num(c.ratio) << "," << num(c.ratio_lo) << "," << num(c.ratio_hi) << ","
        << num(c.ours_busbw) << "," << num(c.baseline_busbw) << "," << (c.run_to_run_identical ? "true" : "false")
        << "," << csv_quoted(c.reason) << "\n";
  }

  std::filesystem::create_directories(o.out_dir);
  write_text_file(o.out_dir + "/multigpu.json", results.dump(2) + "\n");
  write_text_file(o.out_dir + "/multigpu.csv", csv.str());
  std::size_t failures = 0;
  for (const case_outcome& c : outcomes) failures += c.status == case_status::fail ? 1 : 0;
  out << "\nwrote " << o.out_dir << "/multigpu.json and " << o.out_dir << "/multigpu.csv"
      << (failures ? "; " + std::to_string(failures) + " case(s) failed validation" : "") << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace reducelab::multigpu::tool
