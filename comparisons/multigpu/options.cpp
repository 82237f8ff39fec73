#include "comparisons/multigpu/options.hpp"

#include "lab/cli/options.hpp"
#include "lab/cli/text_option.hpp"
#include "reducelab/core/error.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <memory>

namespace reducelab::multigpu::tool {

namespace {

[[noreturn]] void fail(const std::string& message) { throw usage_error(message); }

std::string join(const std::vector<std::string>& v, const char* separator = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : separator) + x;
  return s;
}

// Values are collected as text, as in `reducelab` (lab/cli/text_option.hpp), and converted after parsing.
using cli::add_text;
using cli::parse_unsigned;
using cli::text_value;

struct raw_options {
  text_value gpus, sizes, bytes, ops, parts, rounds, out, piece_bytes, path, clock, seed;
};

std::string case_list() {
  std::vector<std::string> names;
  for (const case_name& c : known_cases()) names.push_back(std::string(to_string(c.which)) + " " + c.label());
  return join(names);
}

/// The cases one part per line, for the help text.
std::string cases_by_part() {
  std::string text;
  for (const part p : {part::scalar, part::all_reduce}) {
    std::vector<std::string> names;
    for (const case_name& c : known_cases())
      if (c.which == p) names.push_back(c.label());
    text += "  " + std::string(to_string(p)) + ": " + join(names) + "\n";
  }
  return text;
}

std::unique_ptr<CLI::App> make_app(raw_options& r) {
  auto app = std::make_unique<CLI::App>(
      "reducelab-multigpu - reductions across the GPUs of one machine (reducelab::multigpu, over NCCL) beside\n"
      "one GPU's reducelab::reduce and NCCL's own ncclAllReduce",
      "reducelab-multigpu");
  app->require_subcommand(1);
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app->get_formatter()->column_width(26);
  app->get_formatter()->label("SUBCOMMAND", "COMMAND");

  auto* compare = app->add_subcommand(
      "compare", "validate, then time reducelab::multigpu::reduce and ::all_reduce (JSON, CSV, goals)");
  add_text(*compare, "--gpus", r.gpus, "N", "ranks, one per GPU 0..N-1 (default: every visible GPU)");
  add_text(*compare, "--sizes", r.sizes, "LIST",
           "scalar reduce: total elements, split evenly over the GPUs in rank order\n"
           "(default: 2^31; the forms of reducelab's --sizes: 2^31,1e9,2^20:2^30:4)");
  add_text(*compare, "--bytes", r.bytes, "LIST",
           "all-reduce: bytes of every rank's vector (default: 256MiB; 2^28, 64MiB, 1GiB)");
  add_text(*compare, "--ops", r.ops, "a,b", "cases: a functor (plus, argmax, mean_variance, affine_compose)\n"
                                            "or functor/type (plus/float); default: all");
  add_text(*compare, "--parts", r.parts, "a,b", "scalar, all_reduce (default: both)");
  add_text(*compare, "--rounds", r.rounds, "R",
           "interleaved samples per timed item, at least " + std::to_string(min_rounds) + " (default: " +
               std::to_string(default_rounds) + ")");
  add_text(*compare, "--clock", r.clock, "events|host",
           "events (default): CUDA events on GPU 0 around fork, work and join;\n"
           "host: the host clock around a call that waits for every rank");
  add_text(*compare, "--all-reduce-path", r.path, "symmetric|send-recv",
           "symmetric (default): one kernel per rank over NCCL symmetric memory (a symmetric_workspace);\n"
           "send-recv: ncclSend/ncclRecv and a fold kernel");
  add_text(*compare, "--piece-bytes", r.piece_bytes, "B",
           "send-recv path: all_reduce_options::piece_bytes, the pipelining granularity;\n"
           "0: one piece per rank's chunk, no pipelining (default: 0)");
  add_text(*compare, "--seed", r.seed, "N", "seed of the inputs' hash and of the interval's bootstrap (default: 20261122)");
  add_text(*compare, "--out", r.out, "DIR", "where multigpu.json and multigpu.csv go (default: results/latest-multigpu)");
  compare->footer("Cases:\n" + cases_by_part() +
                  "NCCL_NVLS_ENABLE is set to 0 unless the environment sets it. Exit status: 0 when every case\n"
                  "validated, 1 when one failed, 2 on a usage error or without a GPU.");
  compare->allow_extras();
  app->footer("One command's options: reducelab-multigpu compare --help");
  return app;
}

}  // namespace

const char* to_string(part p) { return p == part::scalar ? "scalar" : "all_reduce"; }
const char* to_string(clock_choice c) { return c == clock_choice::events ? "events" : "host"; }
const char* to_string(all_reduce_path p) { return p == all_reduce_path::symmetric ? "symmetric" : "send-recv"; }

const std::vector<case_name>& known_cases() {
  static const std::vector<case_name> cases = {
      {part::scalar, "plus", "int32"},
      {part::scalar, "plus", "float"},
      {part::scalar, "argmax", "float_idx32"},
      {part::scalar, "mean_variance", "moments64"},
      {part::scalar, "affine_compose", "affine32"},
      {part::all_reduce, "plus", "int32"},
      {part::all_reduce, "plus", "float"},
      {part::all_reduce, "argmax", "float_idx32"},
  };
  return cases;
}

std::vector<case_name> select_cases(const std::vector<std::string>& ops, const std::vector<std::string>& parts) {
  std::vector<part> wanted_parts;
  for (const std::string& p : parts) {
    if (p == "scalar") wanted_parts.push_back(part::scalar);
    else if (p == "all_reduce" || p == "all-reduce") wanted_parts.push_back(part::all_reduce);
    else fail("--parts: unknown part '" + p + "' (scalar, all_reduce)");
  }
  const auto matches = [](const case_name& c, const std::string& op) {
    return op == c.functor || op == c.label();
  };
  for (const std::string& op : ops) {
    if (std::none_of(known_cases().begin(), known_cases().end(), [&](const case_name& c) { return matches(c, op); }))
      fail("--ops: unknown case '" + op + "' (known: " + case_list() + ")");
  }
  std::vector<case_name> chosen;
  for (const case_name& c : known_cases()) {
    const bool part_ok = wanted_parts.empty() ||
                         std::find(wanted_parts.begin(), wanted_parts.end(), c.which) != wanted_parts.end();
    const bool op_ok = ops.empty() || std::any_of(ops.begin(), ops.end(), [&](const std::string& op) {
                         return matches(c, op);
                       });
    if (part_ok && op_ok) chosen.push_back(c);
  }
  if (chosen.empty())
    fail("--ops " + join(ops, ",") + " with --parts " + join(parts, ",") + " selects no case (known: " +
         case_list() + ")");
  return chosen;
}

std::size_t parse_bytes(const std::string& text) {
  struct suffix {
    const char* name;
    std::size_t factor;
  };
  static const suffix suffixes[] = {{"KiB", std::size_t{1} << 10}, {"MiB", std::size_t{1} << 20},
                                    {"GiB", std::size_t{1} << 30}};
  for (const suffix& s : suffixes) {
    const std::string name = s.name;
    if (text.size() > name.size() && text.compare(text.size() - name.size(), name.size(), name) == 0) {
      const std::size_t v = cli::parse_size(text.substr(0, text.size() - name.size()));
      if (v > std::numeric_limits<std::size_t>::max() / s.factor) fail("byte count '" + text + "' overflows 64 bits");
      return v * s.factor;
    }
  }
  return cli::parse_size(text);
}

int resolve_gpu_count(int requested, int visible) {
  if (requested < 0) fail("--gpus " + std::to_string(requested) + ": needs at least 1 GPU");
  if (visible < 1) fail("no visible GPU to run on");
  if (requested == 0) return visible;
  if (requested > visible)
    fail("--gpus " + std::to_string(requested) + ": this machine has " + std::to_string(visible) + " visible GPU" +
         (visible == 1 ? "" : "s") + " (CUDA_VISIBLE_DEVICES selects which)");
  return requested;
}

std::string nvls_setting::message() const {
  if (set_by_us)
    return "NCCL_NVLS_ENABLE=0 set for this process (NVLink SHARP multicast off; set NCCL_NVLS_ENABLE to override)";
  return "NCCL_NVLS_ENABLE=" + value + " kept from the environment";
}

nvls_setting apply_nvls_default() {
  nvls_setting s;
  if (const char* v = std::getenv("NCCL_NVLS_ENABLE"); v != nullptr) {
    s.value = v;
    return s;
  }
  if (setenv("NCCL_NVLS_ENABLE", "0", 0) != 0) fail("could not set NCCL_NVLS_ENABLE=0 in the environment");
  s.set_by_us = true;
  s.value = "0";
  return s;
}

std::string usage() {
  raw_options raw;
  return make_app(raw)->help();
}

options parse_command_line(int argc, const char* const* argv) {
  raw_options r;
  const auto app = make_app(r);
  options o;
  if (argc < 2) {
    o.command = "help";
    o.help_text = app->help();
    return o;
  }
  const std::string first = argv[1];
  if (first != "-h" && first != "--help" && first != "compare")
    fail("unknown command '" + first + "' (commands: compare; see reducelab-multigpu --help)");
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    o.command = "help";
    o.help_text = app->help();  // the command's own help when one was named
    return o;
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    fail(message);
  }
  for (const text_value* v : {&r.gpus, &r.sizes, &r.bytes, &r.ops, &r.parts, &r.rounds, &r.out, &r.piece_bytes,
                              &r.path, &r.clock, &r.seed})
    if (v->given && v->text.rfind("--", 0) == 0) fail("option " + v->option + " needs a value, not '" + v->text + "'");
  CLI::App* sub = app->get_subcommands().front();
  const std::vector<std::string> extras = sub->remaining();
  if (!extras.empty()) {
    const std::string& x = extras.front();
    if (x.size() > 1 && x[0] == '-')
      fail("unknown option '" + x.substr(0, x.find('=')) + "' for 'compare' (see: reducelab-multigpu compare --help)");
    fail("unexpected argument '" + x + "' for 'compare'");
  }

  o.command = sub->get_name();
  if (r.gpus.given) {
    if (r.gpus.text.size() > 1 && r.gpus.text[0] == '-' && std::isdigit(static_cast<unsigned char>(r.gpus.text[1])))
      fail("--gpus " + r.gpus.text + ": needs at least 1 GPU");
    const std::uint64_t g = parse_unsigned(r.gpus.text, "--gpus");
    if (g < 1) fail("--gpus " + r.gpus.text + ": needs at least 1 GPU");
    if (g > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) fail("--gpus " + r.gpus.text + ": too many");
    o.gpus = static_cast<int>(g);
  }
  if (r.sizes.given) {
    o.sizes = cli::parse_size_list(r.sizes.text);
    for (const std::size_t n : o.sizes)
      if (n == 0) fail("--sizes: 0 elements leave nothing to time");
  }
  if (r.bytes.given) {
    o.bytes.clear();
    for (const std::string& item : cli::split_list(r.bytes.text, "--bytes")) {
      const std::size_t b = parse_bytes(item);
      if (b == 0) fail("--bytes: '" + item + "' leaves nothing to time");
      o.bytes.push_back(b);
    }
  }
  o.cases = select_cases(r.ops.given ? cli::split_list(r.ops.text, "--ops") : std::vector<std::string>{},
                         r.parts.given ? cli::split_list(r.parts.text, "--parts") : std::vector<std::string>{});
  if (r.rounds.given) {
    const std::uint64_t rounds = parse_unsigned(r.rounds.text, "--rounds");
    if (rounds < static_cast<std::uint64_t>(min_rounds))
      fail("--rounds " + r.rounds.text + ": at least " + std::to_string(min_rounds) + " rounds are needed");
    if (rounds > 100000) fail("--rounds " + r.rounds.text + ": more than 100000 rounds");
    o.rounds = static_cast<int>(rounds);
  }
  if (r.clock.given) {
    if (r.clock.text == "events") o.clock = clock_choice::events;
    else if (r.clock.text == "host") o.clock = clock_choice::host;
    else fail("--clock: '" + r.clock.text + "' is not one of events, host");
  }
  if (r.path.given) {
    if (r.path.text == "symmetric") o.path = all_reduce_path::symmetric;
    else if (r.path.text == "send-recv" || r.path.text == "send_recv") o.path = all_reduce_path::send_recv;
    else fail("--all-reduce-path: '" + r.path.text + "' is not one of symmetric, send-recv");
  }
  if (r.piece_bytes.given) {
    o.piece_bytes = parse_bytes(r.piece_bytes.text);
    if (o.piece_bytes != 0 && o.piece_bytes < largest_all_reduce_element)
      fail("--piece-bytes " + r.piece_bytes.text + ": smaller than one " + std::to_string(largest_all_reduce_element) +
           "-byte element of the all-reduce cases");
  }
  if (r.seed.given) o.seed = parse_unsigned(r.seed.text, "--seed");
  if (r.out.given) {
    if (r.out.text.empty()) fail("--out: empty folder name");
    o.out_dir = r.out.text;
  }
  return o;
}

}  // namespace reducelab::multigpu::tool
