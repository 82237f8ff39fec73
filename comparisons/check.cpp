// `reducelab check`: every selected backend (custom variants, thrust::reduce, cub::DeviceReduce) validated
// against the host reference for every selected functor, type, size, input kind and pointer offset, on one
// device_vector per input. Prints one table row per (functor, type) and exits 1 on any mismatch or error.
#include "reducelab/cli/commands.hpp"
#include "reducelab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <algorithm>
#include <iomanip>
#include <map>

namespace reducelab::cli {

namespace {

struct tally {
  std::size_t pass = 0, fail = 0, error = 0, refused = 0;
  std::string refusal;
  std::vector<std::string> problems;
};

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
  // passed/run, "F<failed>/<run>" on any failure, or "-x" when the backend cannot serve the pair (reason x).
  constexpr int col = 7;
  out << std::left << std::setw(30) << "functor/type";
  for (std::size_t i = 0; i < backend_names.size(); ++i) out << std::setw(col) << ("[" + std::to_string(i + 1) + "]");
  out << "\n";
  std::vector<std::string> reasons;
  std::size_t total_pass = 0, total_fail = 0, total_error = 0, total_refused = 0;
  std::vector<std::string> problems;
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
      if (t.refused && !ran) {
        auto it = std::find(reasons.begin(), reasons.end(), t.refusal);
        if (it == reasons.end()) it = reasons.insert(reasons.end(), t.refusal);
        cell = "-" + std::string(1, static_cast<char>('a' + (it - reasons.begin())));
      } else if (t.fail || t.error) {
        cell = "F" + std::to_string(t.fail + t.error) + "/" + std::to_string(ran);
      } else {
        cell = std::to_string(t.pass) + "/" + std::to_string(ran);
      }
      out << std::setw(col) << cell;
      total_pass += t.pass;
      total_fail += t.fail;
      total_error += t.error;
      total_refused += t.refused;
    }
    out << "\n";
  }
  out << "\nbackends:";
  for (std::size_t i = 0; i < backend_names.size(); ++i) out << (i % 4 == 0 ? "\n  " : "  ") << "[" << i + 1 << "] " << backend_names[i];
  out << "\nnot run (the backend cannot serve that functor and type):\n";
  for (std::size_t i = 0; i < reasons.size(); ++i) out << "  -" << static_cast<char>('a' + i) << " " << reasons[i] << "\n";
  out << "\n";
  for (const auto& p : problems) out << p << "\n";
  out << "check: " << total_pass + total_fail + total_error << " runs, " << total_pass << " passed, " << total_fail
      << " failed, " << total_error << " errors; " << total_refused
      << " not run (-x cells: the backend cannot serve that pair, reasons above)\n";
  return total_fail + total_error == 0 ? 0 : 1;
}

}  // namespace reducelab::cli
