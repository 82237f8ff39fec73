// The backend names of each operation, from the same type lists and baselines session.cuh runs, so --variants is
// checked against exactly what the cases offer.
#include "comparisons/segmented/cases.hpp"
#include "comparisons/segmented_baselines.cuh"
#include "lab/segmented/variants/all_segmented_variants.cuh"

namespace reducelab::segmented::tool {

std::vector<std::string> backend_names(operation op) {
  namespace bl = baselines::segmented;
  std::vector<std::string> names;
  if (op == operation::segmented_reduce) {
    for_each_type(all_segmented_variants{}, [&](auto tag) { names.push_back(decltype(tag)::type::name); });
    names.insert(names.end(), {"reducelab::segmented_reduce", bl::cub_segmented_reduce::name,
                               bl::cub_segmented_builtin::name});
  } else {
    names.push_back("reducelab::reduce_by_key");
    for_each_type(all_reduce_by_key_variants{}, [&](auto tag) { names.push_back(decltype(tag)::type::name); });
    names.insert(names.end(), {bl::cub_reduce_by_key::name, bl::thrust_reduce_by_key::name});
  }
  return names;
}

}  // namespace reducelab::segmented::tool
