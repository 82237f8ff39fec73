#include "comparisons/multigpu/goals.hpp"

#include "comparisons/multigpu/measures.hpp"

#include <cstdio>

namespace reducelab::multigpu::tool {

namespace {

std::string two_decimals(double x) {
  if (!std::isfinite(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string size_text(part which, std::size_t size) {
  return which == part::scalar ? "n = " + format_count(size) : format_bytes(size);
}

}  // namespace

const char* to_string(case_status s) {
  switch (s) {
    case case_status::pass: return "pass";
    case case_status::fail: return "fail";
    case case_status::skipped: return "skipped";
  }
  return "?";
}

const char* to_string(goal_status s) {
  switch (s) {
    case goal_status::pass: return "PASS";
    case goal_status::miss: return "MISS";
    case goal_status::no_data: return "NO DATA";
  }
  return "?";
}

void case_outcome::settle() {
  // Skipped only when a case said why and checked nothing; the default status is not a verdict.
  if (status == case_status::skipped && checks.empty() && !reason.empty()) return;
  if (checks.empty() && reason.empty()) {
    status = case_status::fail;
    reason = "no check ran";
    return;
  }
  status = case_status::pass;
  for (const check_result& c : checks) {
    if (!c.ok) {
      status = case_status::fail;
      if (reason.empty()) reason = c.name + ": " + c.detail;
    }
  }
  if (!reason.empty()) status = case_status::fail;  // an error recorded before any check
}

bool case_outcome::stop_untimed_if_failed() {
  for (const check_result& c : checks) {
    if (!c.ok) {
      settle();
      reason = "not timed: " + reason;
      return true;
    }
  }
  return false;
}

const std::vector<goal_spec>& issue_goals() {
  static const std::vector<goal_spec> goals = [] {
    std::vector<goal_spec> g;
    const char* scalar[][2] = {{"plus", "int32"},
                               {"plus", "float"},
                               {"argmax", "float_idx32"},
                               {"mean_variance", "moments64"},
                               {"affine_compose", "affine32"}};
    for (const auto& c : scalar)
      g.push_back({part::scalar, c[0], c[1], default_scalar_n, 1.9,
                   std::string("scalar reduce ") + c[0] + "/" + c[1] + ", 2^31 elements split over 2 GPUs: >= 1.9x one GPU"});
    for (const char* type : {"int32", "float"})
      g.push_back({part::all_reduce, "plus", type, default_all_reduce_bytes, 0.9,
                   std::string("all-reduce plus/") + type + ", 256 MiB: >= 0.9x ncclAllReduce's bus bandwidth"});
    g.push_back({part::all_reduce, "argmax", "float_idx32", default_all_reduce_bytes, 0.9,
                 "all-reduce argmax/float_idx32, 256 MiB: within 10 % of ncclAllReduce(plus, float)'s bus bandwidth "
                 "on the same bytes (>= 0.9x)"});
    return g;
  }();
  return goals;
}

std::string goal_result::line() const {
  std::string s = to_string(status);
  s.resize(9, ' ');
  return s + text + ": " + detail;
}

std::vector<goal_result> judge_goals(const std::vector<case_outcome>& outcomes, int gpus,
                                     const std::string& device_name) {
  const std::string machine_note =
      device_name.find("H200") == std::string::npos ? " (measured on " + device_name + "; the goal is stated for H200)"
                                                    : "";
  std::vector<goal_result> results;
  for (const goal_spec& g : issue_goals()) {
    goal_result r;
    r.text = g.text;
    const case_outcome* found = nullptr;
    for (const case_outcome& o : outcomes) {
      const std::size_t size = g.which == part::scalar ? o.n : o.bytes;
      if (o.which.which == g.which && o.which.functor == g.functor && o.which.type == g.type && size == g.size)
        found = &o;
    }
    if (gpus != goal_gpus) {
      r.detail = "stated for " + std::to_string(goal_gpus) + " GPUs, this run used " + std::to_string(gpus);
      if (found != nullptr && std::isfinite(found->ratio))
        r.detail += " (measured " + two_decimals(found->ratio) + "x, not judged)";
    } else if (found == nullptr) {
      r.detail = "case not run (not selected by --ops/--parts, or " + size_text(g.which, g.size) + " not in " +
                 (g.which == part::scalar ? "--sizes" : "--bytes") + ")";
    } else if (found->status == case_status::skipped) {
      r.detail = "case skipped: " + found->reason;
    } else if (found->status == case_status::fail) {
      r.status = goal_status::miss;
      r.measured = found->ratio;
      r.detail = "the case failed validation, so its figure does not count: " + found->reason;
    } else {
      r.measured = found->ratio;
      r.lo = found->ratio_lo;
      r.hi = found->ratio_hi;
      r.status = found->ratio >= g.threshold ? goal_status::pass : goal_status::miss;
      r.detail = two_decimals(found->ratio) + "x (95 % CI [" + two_decimals(found->ratio_lo) + ", " +
                 two_decimals(found->ratio_hi) + "]), needs >= " + two_decimals(g.threshold) + "x";
      if (g.which == part::all_reduce)
        r.detail += "; bus bandwidth " + two_decimals(found->ours_busbw) + " vs " +
                    two_decimals(found->baseline_busbw) + " GB/s";
      r.detail += machine_note;
    }
    results.push_back(r);
  }

  goal_result same;
  same.text = "results identical run to run";
  std::size_t ran = 0;
  std::string differing;
  for (const case_outcome& o : outcomes) {
    if (o.status == case_status::skipped) continue;
    ++ran;
    if (!o.run_to_run_identical)
      differing += (differing.empty() ? "" : ", ") + std::string(to_string(o.which.which)) + " " + o.which.label();
  }
  if (ran == 0) {
    same.detail = "no case ran";
  } else if (differing.empty()) {
    same.status = goal_status::pass;
    same.measured = static_cast<double>(ran);
    same.detail = "every one of the " + std::to_string(ran) + " case(s) run gave bitwise the same output on every run";
  } else {
    same.status = goal_status::miss;
    same.detail = "outputs differed between runs (or could not be compared) in: " + differing;
  }
  results.push_back(same);
  return results;
}

}  // namespace reducelab::multigpu::tool
