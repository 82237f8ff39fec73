// Parameterized tests over every registered (functor, value type): a functor added under functors/ shows up
// in these suites with no edit here.
#pragma once

#include "lab/registry/registry.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

struct case_param {
  const reducelab::functor_entry* functor;
  const reducelab::value_case* value;
};

// Printed by GoogleTest (and so by `ctest -N`) instead of the raw bytes of the two pointers.
inline void PrintTo(const case_param& c, std::ostream* os) {
  *os << c.functor->name << '<' << c.value->type_name() << '>';
}

inline std::vector<case_param> all_cases() {
  std::vector<case_param> v;
  for (const auto& f : reducelab::the_registry().functors())
    for (const auto& c : f.cases) v.push_back({&f, c.get()});
  return v;
}

inline std::string gtest_safe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

inline std::string case_name(const testing::TestParamInfo<case_param>& info) {
  return gtest_safe(info.param.functor->name + "_" + info.param.value->type_name());
}
