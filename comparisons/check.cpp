// `reducelab check`: every selected backend (custom variants, thrust::reduce, cub::DeviceReduce) validated
// against the host reference for every selected functor, type, size, input kind and pointer offset, on one
// device_vector per input. Prints one table row per (functor, type) and exits 1 on any mismatch or error.
// Rows whose result is undefined (NaN inputs to maximum/minimum, see is_nan_undefined) are not judged: the
// table counts them and a list below it shows what each backend returned, so a disagreement is visible.
#include "lab/cli/commands.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace reducelab::cli {

namespace {

struct tally {
  std::size_t pass = 0, fail = 0, error = 0, refused = 0, undefined = 0;
  std::string refusal;
  std::vector<std::string> problems;
};

/// What the backends returned for one undefined input (functor, type, n and, where several, scenario and
/// offset): each distinct value, in first-seen order, with the numbers (1-based, as in the table's columns) of
/// the backends that returned it.
struct undefined_results {
  std::string where;  // "maximum/float n=1048583 offset 1"
  std::vector<std::pair<std::string, std::vector<std::size_t>>> values;

  void add(const std::string& got, std::size_t backend_number) {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == got; });
    if (it == values.end()) it = values.insert(values.end(), {got, {}});
    if (std::find(it->second.begin(), it->second.end(), backend_number) == it->second.end())
      it->second.push_back(backend_number);
  }
};

/// "[1-3,7,9]" for backend numbers {1, 2, 3, 7, 9}.
std::string number_ranges(std::vector<std::size_t> numbers) {
  std::sort(numbers.begin(), numbers.end());
  std::string s = "[";
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    s += (i ? "," : "") + std::to_string(numbers[i]) + (j > i ? "-" + std::to_string(numbers[j]) : "");
    i = j + 1;
  }
  return s + "]";
}

}  // namespace

int run_check(const registry& reg, const options& o, std::ostream& out) {
  const auto cases = select_cases(reg, o);
  validate_backends(reg, o);
  require_gpu("check");
  const std::vector<std::size_t> sizes =
      o.sizes.empty() ? std::vector<std::size_t>{0, 1, 31, 32, 33, 1000, (std::size_t{1} << 20) + 7} : o.sizes;
  const std::vector<input_kind> inputs = o.inputs.empty() ? std::vector<input_kind>{input_kind::random} : o.inputs;
  const std::vector<std::size_t> offsets = o.offsets.empty() ? std::vector<std::size_t>{0} : o.offsets;
  const device_info& dev = current_device();
  out << "reducelab check on " << dev.name << " (sm_" << dev.compute_major << dev.compute_minor << ", "
      << dev.sm_count << " SMs)\n";
  out << "sizes:";
  for (auto s : sizes) out << " " << s;
  out << " | inputs:";
  for (auto k : inputs) out << " " << to_string(k);
  out << " | offsets:";
  for (auto k : offsets) out << " " << k;
  out << " | seed " << o.seed << "\n\n";

  std::vector<std::string> backend_names;
  for (const auto& b : cases.front().value->backends())
    if (o.variants.empty() || std::find(o.variants.begin(), o.variants.end(), b.name) != o.variants.end())
      backend_names.push_back(b.name);

  // One row per (functor, type), one narrow column per backend (numbered; legend below the table). A cell is
  // passed/run, "F<failed>/<run>" on any failure, or "-x" when the backend cannot serve the pair (reason x);
  // "U<k>" (alone or after passed/run) counts k runs whose result is undefined, listed below the table.
  constexpr int col = 7;
  out << std::left << std::setw(30) << "functor/type";
  for (std::size_t i = 0; i < backend_names.size(); ++i) out << std::setw(col) << ("[" + std::to_string(i + 1) + "]");
  out << "\n";
  std::vector<std::string> reasons;
  std::size_t total_pass = 0, total_fail = 0, total_error = 0, total_refused = 0, total_undefined = 0;
  std::vector<std::string> problems;
  std::vector<undefined_results> undefined;  // one entry per input with an undefined row
  auto backend_number = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(backend_names.begin(), backend_names.end(), name) - backend_names.begin()) + 1;
  };
  for (const auto& c : cases) {
    std::map<std::string, tally> per_backend;
    for (std::size_t n : sizes) {
      for (input_kind kind : inputs) {
        // Adversarial inputs: every scenario the functor defines (the seed picks one: seed % scenarios).
        const unsigned scenarios = kind == input_kind::adversarial ? c.value->adversarial_scenarios() : 1;
        for (unsigned scenario = 0; scenario < scenarios; ++scenario) {
          for (std::size_t offset : offsets) {
            check_request req;
            req.n = n;
            req.kind = kind;
            req.seed = (o.seed + n) * scenarios + scenario;
            req.offset = offset;
            req.backends = backend_names;
            for (const auto& row : c.value->check_on_gpu(req)) {
              tally& t = per_backend[row.backend];
              const std::string where = c.functor->name + "/" + c.value->type_name() + " " + row.backend + " n=" +
                                        std::to_string(n) + " " + to_string(kind) +
                                        (scenarios > 1 ? " scenario " + std::to_string(scenario) : std::string()) +
                                        " seed " + std::to_string(req.seed) + " offset " + std::to_string(offset);
              switch (row.status) {
                case check_status::pass: ++t.pass; break;
                case check_status::refused: ++t.refused; t.refusal = row.message; break;
                case check_status::fail: ++t.fail; problems.push_back("FAIL  " + where + ": " + row.message); break;
                case check_status::error: ++t.error; problems.push_back("ERROR " + where + ": " + row.message); break;
                case check_status::undefined: {
                  ++t.undefined;
                  // One line per input: another offset or seed is another input, whose results may differ.
                  const std::string key = c.functor->name + "/" + c.value->type_name() + " n=" + std::to_string(n) +
                                          (scenarios > 1 ? " scenario " + std::to_string(scenario) : std::string()) +
                                          (offsets.size() > 1 ? " offset " + std::to_string(offset) : std::string());
                  if (undefined.empty() || undefined.back().where != key) undefined.push_back({key, {}});
                  undefined.back().add(row.result.got, backend_number(row.backend));
                  break;
                }
              }
              if (o.verbose && row.status != check_status::refused) {
                out << "    " << to_string(row.status) << " " << where << ": got " << row.result.got;
                if (row.result.bounded) out << ", |error| " << row.result.error << " <= bound " << row.result.bound;
                out << "\n";
              }
            }
          }
        }
      }
    }
    out << std::setw(30) << (c.functor->name + "/" + c.value->type_name());
    for (const auto& b : backend_names) {
      const tally& t = per_backend[b];
      std::string cell;
      const std::size_t ran = t.pass + t.fail + t.error;
      const std::string undefined_count = t.undefined ? "U" + std::to_string(t.undefined) : std::string();
      if (t.refused && !ran && !t.undefined) {
        auto it = std::find(reasons.begin(), reasons.end(), t.refusal);
        if (it == reasons.end()) it = reasons.insert(reasons.end(), t.refusal);
        cell = "-" + std::string(1, static_cast<char>('a' + (it - reasons.begin())));
      } else if (t.fail || t.error) {
        cell = "F" + std::to_string(t.fail + t.error) + "/" + std::to_string(ran);
      } else {
        cell = (ran || !t.undefined ? std::to_string(t.pass) + "/" + std::to_string(ran) : std::string()) +
               undefined_count;
      }
      out << std::setw(col) << cell;
      total_pass += t.pass;
      total_fail += t.fail;
      total_error += t.error;
      total_refused += t.refused;
      total_undefined += t.undefined;
    }
    out << "\n";
  }
  out << "\nbackends:";
  for (std::size_t i = 0; i < backend_names.size(); ++i) out << (i % 4 == 0 ? "\n  " : "  ") << "[" << i + 1 << "] " << backend_names[i];
  out << "\nnot run (the backend cannot serve that functor and type):\n";
  for (std::size_t i = 0; i < reasons.size(); ++i) out << "  -" << static_cast<char>('a' + i) << " " << reasons[i] << "\n";
  out << "\n";
  if (!undefined.empty()) {
    out << "undefined (U cells: NaN inputs, where the functor's result is undefined; not judged, shown as each "
           "backend [number] returned it):\n";
    for (const auto& u : undefined) {
      out << "  " << u.where << ": "
          << (u.values.size() > 1 ? "backends disagree, " + std::to_string(u.values.size()) + " results:"
                                  : std::string("one result:"));
      for (std::size_t i = 0; i < u.values.size(); ++i)
        out << (i ? ";" : "") << " " << u.values[i].first << " " << number_ranges(u.values[i].second);
      out << "\n";
    }
    out << "\n";
  }
  for (const auto& p : problems) out << p << "\n";
  out << "check: " << total_pass + total_fail + total_error << " runs, " << total_pass << " passed, " << total_fail
      << " failed, " << total_error << " errors; " << total_undefined << " undefined (not judged); " << total_refused
      << " not run (-x cells: the backend cannot serve that pair, reasons above)\n";
  return total_fail + total_error == 0 ? 0 : 1;
}

}  // namespace reducelab::cli
