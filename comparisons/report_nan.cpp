// See report_nan.hpp. Each row of results["nan_semantics"] is {functor, type, n, backend, got, status[,
// message]}; the rows of one (functor, type) are grouped by `got`, so a functor whose backends disagree shows
// several results, each with the backends that returned it.
#include "comparisons/report_nan.hpp"

#include "comparisons/results_view.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <utility>
#include <vector>

namespace reducelab::report {

namespace {

using json = nlohmann::json;
using detail::cell;
using detail::code;

constexpr const char* status_undefined = "UNDEFINED";
constexpr const char* status_pass = "PASS";

std::string text_at(const json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// One distinct result of a (functor, type) and the backends that returned it.
struct result_group {
  std::string got;
  std::vector<std::string> backends;
  std::vector<std::string> statuses;  // distinct, first-seen order
};

struct nan_case {
  std::string functor, type;
  std::uint64_t n = 0;
  std::vector<result_group> results;
  std::size_t backends = 0, undefined = 0, passed = 0;
  std::vector<std::string> problems;  // "`backend` FAIL: message"
};

std::vector<nan_case> group_rows(const json& rows) {
  std::vector<nan_case> cases;
  for (const json& row : rows) {
    if (!row.is_object()) continue;
    const std::string functor = text_at(row, "functor"), type = text_at(row, "type");
    auto c = std::find_if(cases.begin(), cases.end(), [&](const nan_case& k) { return k.functor == functor && k.type == type; });
    if (c == cases.end()) {
      nan_case k;
      k.functor = functor;
      k.type = type;
      c = cases.insert(cases.end(), std::move(k));
      const auto n = row.find("n");
      if (n != row.end() && n->is_number_integer()) c->n = n->get<std::uint64_t>();
    }
    const std::string got = text_at(row, "got"), status = text_at(row, "status"), backend = text_at(row, "backend");
    ++c->backends;
    if (status == status_undefined) ++c->undefined;
    if (status == status_pass) ++c->passed;
    if (status != status_undefined && status != status_pass)
      c->problems.push_back(code(backend) + " " + status + (text_at(row, "message").empty() ? "" : ": " + text_at(row, "message")));
    auto g = std::find_if(c->results.begin(), c->results.end(), [&](const result_group& r) { return r.got == got; });
    if (g == c->results.end()) g = c->results.insert(c->results.end(), result_group{got, {}, {}});
    g->backends.push_back(backend);
    if (std::find(g->statuses.begin(), g->statuses.end(), status) == g->statuses.end()) g->statuses.push_back(status);
  }
  return cases;
}

/// What the functor does with NaN, for the sentence under the table ("" for a functor not known here).
std::string nan_rule(const std::string& functor) {
  if (functor == "amax" || functor == "amin") return "NaN propagates, as in numpy." + functor.substr(1);
  if (functor == "nanmax" || functor == "nanmin") return "NaNs are skipped, as in numpy." + functor;
  return "";
}

std::string verdict(const nan_case& c) {
  std::ostringstream s;
  const std::size_t distinct = c.results.size();
  s << "- " << code(c.functor) << " / " << code(c.type) << ": ";
  if (distinct > 1) {
    s << "**backends disagree**: " << distinct << " different results from " << c.backends << " backends";
  } else if (distinct == 1) {
    s << "one answer, " << code(c.results.front().got) << ", from all " << c.backends << " backends";
  } else {
    s << "no backend ran";
  }
  if (c.undefined > 0) {
    s << (distinct > 1 ? ". NaN results are undefined for it: each backend's answer depends on the order in "
                         "which it combines, so none of them is wrong and none can be relied on"
                       : ". NaN results are undefined for it: the backends agree on this input, but another "
                         "order or input may not");
  } else if (c.passed == c.backends && c.backends > 0) {
    s << ", equal to the in-order host reference";
    const std::string rule = nan_rule(c.functor);
    if (!rule.empty()) s << " (" << rule << ")";
  }
  s << ".";
  if (!c.problems.empty()) {
    s << " Not passed:";
    for (std::size_t i = 0; i < c.problems.size(); ++i) s << (i ? "; " : " ") << cell(c.problems[i]);
    s << ".";
  }
  s << "\n";
  return s.str();
}

}  // namespace

std::string render_nan_section(const json& results) {
  if (!results.is_object()) return "";
  const auto rows = results.find("nan_semantics");
  if (rows == results.end() || !rows->is_array() || rows->empty()) return "";
  const std::vector<nan_case> cases = group_rows(*rows);

  std::ostringstream s;
  s << "## NaN inputs\n\n"
    << "Each backend reduced one input of random values with quiet NaNs at the first and the last position and at "
       "about 1 in 64 others (`reducelab check --inputs nan`). `maximum` and `minimum` are CUB's and Thrust's "
       "max/min, `(a < b) ? b : a`: with a NaN operand the answer depends on which operand comes first, so it "
       "depends on the order in which a backend combines; their rows are shown, not judged (`UNDEFINED`). "
       "`amax`/`amin` propagate NaN (`numpy.max`) and `nanmax`/`nanmin` skip it (`numpy.nanmax`), with one "
       "canonical NaN and +0.0 > -0.0, so every combine order gives the same bits; their rows are judged exactly "
       "against the in-order host reference.\n\n";
  s << "| Functor | Type | n | Result | Status | Backends |\n|---|---|---:|---|---|---|\n";
  for (const auto& c : cases) {
    bool first = true;
    for (const auto& r : c.results) {
      std::string backends, statuses;
      for (const auto& b : r.backends) backends += (backends.empty() ? "" : ", ") + code(b);
      for (const auto& st : r.statuses) statuses += (statuses.empty() ? "" : ", ") + st;
      s << "| " << (first ? code(c.functor) : "") << " | " << (first ? code(c.type) : "") << " | "
        << (first ? std::to_string(c.n) : "") << " | " << code(r.got.empty() ? "(none)" : r.got) << " | " << statuses
        << " | " << backends << " (" << r.backends.size() << ") |\n";
      first = false;
    }
  }
  s << "\n";
  for (const auto& c : cases) s << verdict(c);
  s << "\n";
  return s.str();
}

}  // namespace reducelab::report
