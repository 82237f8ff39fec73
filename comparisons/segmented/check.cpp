// `reducelab segmented check`: every backend of every selected case validated against the in-order host reference
// (judge_segments), one line per (case, backend): PASS, FAIL with the first failing segment, ERROR, or SKIP with
// the reason the backend cannot serve the case. Exit 1 on any FAIL or ERROR.
#include "comparisons/segmented/selection.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/device_info.hpp"

#include <exception>

namespace reducelab::segmented::tool {

int run_check(const selection& s, std::ostream& out) {
  const device_info& dev = current_device();
  out << "reducelab segmented check on " << dev.name << " | seed " << s.seed << "\n";
  stream_owner stream;
  std::size_t pass = 0, fail = 0, skipped = 0;
  for (std::size_t n : s.sizes) {
    for (operation op : {operation::segmented_reduce, operation::reduce_by_key}) {
      for (const std::string& spec : s.layouts(op)) {
        const segment_layout layout = checked_layout(spec, n, s.seed);
        for (const case_entry& c : s.cases) {
          const std::string where = case_label(c, op, spec, n);
          const case_session session = c.open(op, layout, s.seed + n);
          for (const backend_run& b : session.backends) {
            if (!s.wants(b.name)) continue;
            if (!b.refusal.empty()) {
              ++skipped;
              out << "SKIP  " << where << "  " << b.name << ": " << b.refusal << "\n";
              continue;
            }
            judged j;
            try {
              j = b.validate(stream.get());
            } catch (const std::exception& e) {
              j = {false, std::string("error: ") + e.what()};
            }
            (j.ok ? pass : fail) += 1;
            out << (j.ok ? "PASS  " : "FAIL  ") << where << "  " << b.name << (j.ok ? "" : ": " + j.message) << "\n";
          }
        }
      }
    }
  }
  out << "segmented check: " << pass + fail << " runs, " << pass << " passed, " << fail << " failed; " << skipped
      << " skipped (the backend cannot serve the case)\n";
  return fail == 0 ? 0 : 1;
}

}  // namespace reducelab::segmented::tool
