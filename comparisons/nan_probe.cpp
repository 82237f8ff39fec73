// See nan_probe.hpp.
#include "comparisons/nan_probe.hpp"

namespace reducelab {

nlohmann::ordered_json probe_nan_semantics(const registry& reg, std::uint64_t seed) {
  static constexpr const char* functors[] = {"maximum", "minimum", "amax", "amin", "nanmax", "nanmin"};
  static constexpr const char* types[] = {"float", "double"};
  auto rows = nlohmann::ordered_json::array();
  for (const char* functor : functors) {
    const functor_entry* f = reg.find(functor);
    if (f == nullptr) continue;
    for (const char* type : types) {
      const value_case* c = f->find(type);
      if (c == nullptr) continue;
      check_request req;
      req.n = nan_probe_n;
      req.kind = input_kind::nan;
      req.seed = seed;
      for (const check_row& r : c->check_on_gpu(req)) {
        if (r.status == check_status::refused) continue;  // the backend cannot serve this pair
        nlohmann::ordered_json row;
        row["functor"] = functor;
        row["type"] = type;
        row["n"] = req.n;
        row["backend"] = r.backend;
        row["got"] = r.result.got;
        row["status"] = to_string(r.status);
        if (r.status != check_status::pass && r.status != check_status::undefined) row["message"] = r.message;
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

}  // namespace reducelab
