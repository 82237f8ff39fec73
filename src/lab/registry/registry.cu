#include "lab/registry/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace reducelab {

namespace generated {
void register_all(registry& r);  // defined in the generated all_functors.cu
}

const char* to_string(backend_family f) {
  switch (f) {
    case backend_family::custom: return "custom";
    case backend_family::library: return "library";
    case backend_family::thrust: return "thrust";
    case backend_family::cub: return "cub";
    case backend_family::cpu: return "cpu";
  }
  return "?";
}

const char* to_string(check_status s) {
  switch (s) {
    case check_status::pass: return "PASS";
    case check_status::fail: return "FAIL";
    case check_status::refused: return "REFUSED";
    case check_status::error: return "ERROR";
    case check_status::undefined: return "UNDEFINED";
  }
  return "?";
}

const value_case* functor_entry::find(std::string_view type_name) const {
  for (const auto& c : cases)
    if (c->type_name() == type_name) return c.get();
  return nullptr;
}

const functor_entry* registry::find(std::string_view functor_name) const {
  for (const auto& f : functors_)
    if (f.name == functor_name) return &f;
  return nullptr;
}

functor_entry& registry::functor(const std::string& name, const std::string& summary, bool commutative) {
  for (auto& f : functors_)
    if (f.name == name) return f;
  functor_entry f;
  f.name = name;
  f.summary = summary;
  f.commutative = commutative;
  functors_.push_back(std::move(f));
  return functors_.back();
}

void registry::add(const std::string& functor_name, std::unique_ptr<value_case> c) {
  for (auto& f : functors_) {
    if (f.name == functor_name) {
      f.cases.push_back(std::move(c));
      return;
    }
  }
  throw std::logic_error("registry::add: functor " + functor_name + " was not declared first");
}

void registry::finish() {
  for (auto& f : functors_) {
    std::sort(f.cases.begin(), f.cases.end(),
              [](const auto& a, const auto& b) { return a->type_index < b->type_index; });
  }
}

std::vector<std::string> registry::backend_names() const {
  std::vector<std::string> names;
  for (const auto& f : functors_) {
    for (const auto& c : f.cases) {
      for (const auto& b : c->backends()) {
        if (std::find(names.begin(), names.end(), b.name) == names.end()) names.push_back(b.name);
      }
      if (!names.empty()) return names;  // every case lists every backend
    }
  }
  return names;
}

std::vector<std::string> registry::type_names() const {
  std::vector<std::string> names;
  for (const auto& f : functors_)
    for (const auto& c : f.cases)
      if (std::find(names.begin(), names.end(), c->type_name()) == names.end()) names.push_back(c->type_name());
  return names;
}

const registry& the_registry() {
  static const registry r = [] {
    registry built;
    generated::register_all(built);
    built.finish();
    return built;
  }();
  return r;
}

}  // namespace reducelab
