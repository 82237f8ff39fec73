#include "lab/cli/commands.hpp"

#include "comparisons/commands_report.hpp"
#include "comparisons/segmented/report.hpp"

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace reducelab::cli {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::vector<selected_case> select_cases(const registry& reg, const options& o) {
  std::vector<std::string> functor_names;
  for (const auto& f : reg.functors()) functor_names.push_back(f.name);
  for (const auto& name : o.ops)
    if (!reg.find(name)) throw usage_error("unknown functor '" + name + "' (known: " + join(functor_names) + ")");
  const std::vector<std::string> type_names = reg.type_names();
  for (const auto& name : o.types)
    if (!contains(type_names, name)) throw usage_error("unknown type '" + name + "' (known: " + join(type_names) + ")");
  std::vector<selected_case> picked;
  for (const auto& f : reg.functors()) {
    if (!o.ops.empty() && !contains(o.ops, f.name)) continue;
    for (const auto& c : f.cases) {
      if (!o.types.empty() && !contains(o.types, c->type_name())) continue;
      picked.push_back({&f, c.get()});
    }
  }
  if (picked.empty())
    throw usage_error("no functor is registered for the requested types (--ops " + join(o.ops, ",") + " --types " +
                      join(o.types, ",") + ")");
  return picked;
}

void validate_backends(const registry& reg, const options& o) {
  const auto names = reg.backend_names();
  for (const auto& v : o.variants)
    if (!contains(names, v)) throw usage_error("unknown variant '" + v + "' (known: " + join(names) + ")");
}

void require_gpu(const std::string& command) {
  const std::string why = why_no_device();
  if (!why.empty()) throw usage_error("'" + command + "' needs a GPU: " + why);
}

int run_list(const registry& reg, const options& o, std::ostream& out) {
  const auto cases = select_cases(reg, o);
  const auto& first_backends = cases.front().value->backends();
  if (o.json) {
    nlohmann::ordered_json j;
    j["functors"] = nlohmann::ordered_json::array();
    const functor_entry* current = nullptr;
    for (const auto& c : cases) {
      if (c.functor != current) {
        current = c.functor;
        j["functors"].push_back({{"name", c.functor->name},
                                 {"summary", c.functor->summary},
                                 {"commutative", c.functor->commutative},
                                 {"types", nlohmann::ordered_json::array()}});
      }
      nlohmann::ordered_json t = {{"type", c.value->type_name()},
                                  {"bytes", c.value->value_bytes()},
                                  {"identity", c.value->identity()},
                                  {"exact", c.value->exact()},
                                  {"backends", nlohmann::ordered_json::array()}};
      for (const auto& b : c.value->backends()) {
        nlohmann::ordered_json jb = {{"name", b.name}, {"applicable", b.applicable()}};
        if (!b.applicable()) jb["refusal"] = b.refusal;
        if (!b.path.empty()) jb["path"] = b.path;
        t["backends"].push_back(jb);
      }
      j["functors"].back()["types"].push_back(t);
    }
    j["variants"] = nlohmann::ordered_json::array();
    for (const auto& b : first_backends)
      j["variants"].push_back({{"name", b.name},
                               {"family", to_string(b.family)},
                               {"ladder_step", b.ladder_step},
                               {"preserves_order", b.preserves_order},
                               {"deterministic", b.deterministic},
                               {"summary", b.summary}});
    j["types"] = reg.type_names();
    out << j.dump(2) << "\n";
    return 0;
  }
  // Columns as wide as the longest functor name, type name and functor/type label: a user's functor can have
  // any name, and a fixed width would run it into the next column.
  std::size_t functor_width = 0, type_width = 0, case_width = 0;
  for (const auto& c : cases) {
    functor_width = std::max(functor_width, c.functor->name.size());
    type_width = std::max(type_width, c.value->type_name().size());
    case_width = std::max(case_width, c.functor->name.size() + 1 + c.value->type_name().size());
  }
  const int functor_col = static_cast<int>(functor_width + 2), type_col = static_cast<int>(type_width + 2),
            case_col = static_cast<int>(case_width + 2);
  out << "Functors (identity per value type):\n";
  const functor_entry* current = nullptr;
  for (const auto& c : cases) {
    if (c.functor != current) {
      current = c.functor;
      out << "  " << std::left << std::setw(functor_col) << c.functor->name
          << (c.functor->commutative ? "commutative      " : "NON-commutative  ") << c.functor->summary << "\n";
    }
    out << "      " << std::setw(type_col) << c.value->type_name() << std::setw(4) << c.value->value_bytes()
        << (c.value->exact() ? "exact    " : "bounded  ") << "identity " << c.value->identity() << "\n";
  }
  // Numbered so that the matrix below can use the numbers as column heads; the name column is as wide as the
  // longest name (the baselines' names are long) so that the columns stay aligned.
  std::size_t name_width = 0;
  for (const auto& b : first_backends) name_width = std::max(name_width, b.name.size());
  out << "\nVariants and baselines:\n";
  for (std::size_t i = 0; i < first_backends.size(); ++i) {
    const auto& b = first_backends[i];
    out << "  " << std::right << std::setw(4) << ("[" + std::to_string(i + 1) + "]") << " " << std::left
        << std::setw(static_cast<int>(name_width + 2)) << b.name << std::setw(8) << to_string(b.family)
        << (b.preserves_order ? "order-preserving " : "reorders         ")
        << (b.deterministic ? "deterministic     " : "non-deterministic ") << b.summary << "\n";
  }
  out << "\nTypes: " << join(reg.type_names()) << "\n";
  out << "\nApplicability (rows: functor/type; columns: backends as numbered above; ok = served):\n";
  out << "  " << std::setw(case_col) << "";
  for (std::size_t i = 0; i < first_backends.size(); ++i) out << std::setw(5) << ("[" + std::to_string(i + 1) + "]");
  out << "\n";
  std::vector<std::string> reasons;
  for (const auto& c : cases) {
    out << "  " << std::setw(case_col) << (c.functor->name + "/" + c.value->type_name());
    for (const auto& b : c.value->backends()) {
      std::string cell = "ok";
      if (!b.applicable()) {
        auto it = std::find(reasons.begin(), reasons.end(), b.refusal);
        if (it == reasons.end()) it = reasons.insert(reasons.end(), b.refusal);
        cell = "-" + std::string(1, static_cast<char>('a' + (it - reasons.begin())));
      }
      out << std::setw(5) << cell;
    }
    out << "\n";
  }
  out << "  columns:";
  for (std::size_t i = 0; i < first_backends.size(); ++i) out << " [" << i + 1 << "] " << first_backends[i].name;
  out << "\n";
  for (std::size_t i = 0; i < reasons.size(); ++i)
    out << "  -" << static_cast<char>('a' + i) << ": refused, " << reasons[i] << "\n";
  bool header = false;
  for (const auto& c : cases) {
    for (const auto& b : c.value->backends()) {
      if (b.path.empty() || !b.applicable()) continue;
      if (!header) out << "\nWarp reduction path per (functor, type):\n";
      header = true;
      out << "  " << std::setw(static_cast<int>(name_width + 2)) << b.name << std::setw(case_col)
          << (c.functor->name + "/" + c.value->type_name()) << b.path << "\n";
    }
  }
  return 0;
}

int run_command(const options& o, std::ostream& out, const std::string& command_line) {
  if (o.command == "help") {
    out << (o.help_text.empty() ? usage() : o.help_text);
    return 0;
  }
  if (o.command == "report") {  // neither needs the registry or a GPU
    // A `segmented compare` file has its own report; its schema says which.
    if (o.positional.size() == 1 && segmented::report::is_segmented_file(o.positional.front()))
      return segmented::report::run_report(o, out);
    return run_report(o, out);
  }
  if (o.command == "diff") return run_diff(o, out);
  if (o.command == "methods") return run_methods(o, out);  // needs a GPU but not the registry
  if (o.command == "tune") return run_tune(o, out, command_line);
  if (o.command == "segmented") return run_segmented(o, out, command_line);  // its own cases, not the registry's
  const registry& reg = the_registry();
  if (o.command == "list") return run_list(reg, o, out);
  if (o.command == "check") return run_check(reg, o, out);
  if (o.command == "compare") return run_compare(reg, o, out, command_line);
  throw usage_error("command '" + o.command + "' is not available in this build yet");
}

}  // namespace reducelab::cli
