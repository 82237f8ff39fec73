// CPU: the registry agrees with the files on disk and with each functor's declared traits.
#include "lab/functor_files.hpp"
#include "registry_params.hpp"

#include <algorithm>
#include <set>

using reducelab::the_registry;

TEST(Registry, EveryFunctorHeaderIsRegistered) {
  std::set<std::string> files(std::begin(reducelab::generated::functor_files), std::end(reducelab::generated::functor_files));
  std::set<std::string> registered;
  for (const auto& f : the_registry().functors()) registered.insert(f.name);
  EXPECT_EQ(files, registered);
  for (const char* builtin : {"plus", "multiplies", "maximum", "minimum", "logical_and", "logical_or", "bit_and",
                              "bit_or", "bit_xor", "abs_max", "argmax", "min_max", "mean_variance", "affine_compose",
                              "amax", "amin", "nanmax", "nanmin"})
    EXPECT_TRUE(the_registry().find(builtin) != nullptr) << builtin;
}

TEST(Registry, BuiltinTypesAreCovered) {
  for (const char* op : {"plus", "multiplies", "maximum", "minimum"})
    for (const char* t : {"int32", "uint32", "int64", "uint64", "float", "double"})
      EXPECT_TRUE(the_registry().find(op)->find(t) != nullptr) << op << "/" << t;
  for (const char* op : {"logical_and", "logical_or"})
    for (const char* t : {"bool", "uint8"}) EXPECT_TRUE(the_registry().find(op)->find(t) != nullptr) << op << "/" << t;
}

TEST(Registry, BackendNamesAreUniqueAndTheSameForEveryCase) {
  const auto names = the_registry().backend_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_TRUE(std::find(names.begin(), names.end(), "thrust::reduce") != names.end());
  EXPECT_TRUE(std::find(names.begin(), names.end(), "cub::DeviceReduce::Reduce") != names.end());
  for (const auto& c : all_cases()) {
    std::vector<std::string> here;
    for (const auto& b : c.value->backends()) here.push_back(b.name);
    EXPECT_EQ(here, names) << c.functor->name << "/" << c.value->type_name();
  }
}

class Applicability : public testing::TestWithParam<case_param> {};

TEST_P(Applicability, FollowsTheDeclaredTraits) {
  const auto& c = GetParam();
  for (const auto& b : c.value->backends()) {
    if (!c.functor->commutative && !b.preserves_order) {
      EXPECT_FALSE(b.applicable()) << b.name << " reorders operands yet accepts non-commutative " << c.functor->name;
      EXPECT_NE(b.refusal.find("commutative"), std::string::npos) << b.refusal;
    }
    if (c.functor->commutative && b.refusal == "needs a commutative functor")
      ADD_FAILURE() << b.name << " refuses commutative " << c.functor->name << " for commutativity";
  }
  EXPECT_FALSE(c.value->identity().empty());
}

INSTANTIATE_TEST_SUITE_P(AllFunctors, Applicability, testing::ValuesIn(all_cases()), case_name);

TEST(Registry, NonCommutativeFunctorGetsTheScanWorkaroundNotTheLibraryReductions) {
  const auto* affine = the_registry().find("affine_compose");
  ASSERT_NE(affine, nullptr);
  EXPECT_FALSE(affine->commutative);
  for (const auto& b : affine->cases.front()->backends()) {
    if (b.family == reducelab::backend_family::custom) continue;
    if (b.family == reducelab::backend_family::library) {  // reducelab::reduce keeps input order: it serves every functor
      EXPECT_TRUE(b.applicable()) << b.name << ": " << b.refusal;
      continue;
    }
    const bool scan = b.name.find("inclusive_scan") != std::string::npos || b.name.find("InclusiveScan") != std::string::npos;
    EXPECT_EQ(b.applicable(), scan) << b.name << ": " << b.refusal;
  }
  // and for a commutative functor it is the other way round
  for (const auto& b : the_registry().find("plus")->find("int32")->backends()) {
    if (b.name.find("nclusive") != std::string::npos) {
      EXPECT_FALSE(b.applicable()) << b.name;
    }
  }
}

TEST(Registry, ReportsEachFunctorsAdversarialScenarios) {
  // The GPU matrix and `check --inputs adversarial` walk every scenario the functor declares, so the count
  // must come from the functor: plus has four for floating point (-0.0 only, cancelling, +inf, NaN), one for
  // integers; argmax two; a functor that declares none has one (its adversarial input is random).
  EXPECT_EQ(the_registry().find("plus")->find("float")->adversarial_scenarios(), 4u);
  EXPECT_EQ(the_registry().find("plus")->find("int32")->adversarial_scenarios(), 1u);
  EXPECT_EQ(the_registry().find("argmax")->find("float_idx32")->adversarial_scenarios(), 2u);
  EXPECT_EQ(the_registry().find("bit_xor")->find("uint64")->adversarial_scenarios(), 1u);
}
