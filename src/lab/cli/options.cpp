#include "lab/cli/options.hpp"
#include "lab/cli/text_option.hpp"

#include "lab/segmented/host/layouts.hpp"
#include "reducelab/core/error.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>

namespace reducelab::cli {

namespace {

[[noreturn]] void fail(const std::string& message) { throw usage_error(message); }

}  // namespace

std::uint64_t parse_unsigned(const std::string& text, const std::string& what) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    fail(what + ": '" + text + "' is not a non-negative integer");
  std::uint64_t v = 0;
  for (char c : text) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) fail(what + ": '" + text + "' is too large");
    v = v * 10 + d;
  }
  return v;
}

CLI::Option* add_text(CLI::App& app, const std::string& names, text_value& v, const std::string& type,
                      const std::string& description) {
  v.option = names.substr(0, names.find(','));
  auto* opt = app.add_option_function<std::string>(
      names, [&v](const std::string& t) { v.text = t; v.given = true; }, description);
  return opt->type_name(type);
}

std::size_t parse_size(const std::string& text) {
  const std::string what = "size '" + text + "'";
  if (text.empty()) fail("empty size in a size list");
  // base: N, 2^K or MeK; then optional +C / -C
  std::size_t pos = text.find_first_of("+-", 1);
  const std::string head = text.substr(0, pos);
  std::uint64_t value = 0;
  if (const auto caret = head.find('^'); caret != std::string::npos) {
    const std::uint64_t base = parse_unsigned(head.substr(0, caret), what);
    const std::uint64_t exp = parse_unsigned(head.substr(caret + 1), what);
    value = 1;
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (base != 0 && value > std::numeric_limits<std::uint64_t>::max() / base) fail(what + " overflows 64 bits");
      value *= base;
    }
    if (exp == 0) value = 1;
  } else if (const auto e = head.find_first_of("eE"); e != std::string::npos) {
    value = parse_unsigned(head.substr(0, e), what);
    const std::uint64_t exp = parse_unsigned(head.substr(e + 1), what);
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (value > std::numeric_limits<std::uint64_t>::max() / 10) fail(what + " overflows 64 bits");
      value *= 10;
    }
  } else {
    value = parse_unsigned(head, what);
  }
  if (pos != std::string::npos) {
    const std::uint64_t c = parse_unsigned(text.substr(pos + 1), what);
    if (text[pos] == '+') {
      if (value > std::numeric_limits<std::uint64_t>::max() - c) fail(what + " overflows 64 bits");
      value += c;
    } else {
      if (c > value) fail(what + " is negative");
      value -= c;
    }
  }
  return static_cast<std::size_t>(value);
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) fail(option + ": empty item in '" + text + "'");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<std::size_t> parse_size_list(const std::string& text) {
  std::vector<std::size_t> sizes;
  for (const std::string& item : split_list(text, "--sizes")) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      sizes.push_back(parse_size(item));
      continue;
    }
    const auto colon2 = item.find(':', colon + 1);
    const std::size_t start = parse_size(item.substr(0, colon));
    const std::size_t stop = parse_size(item.substr(colon + 1, colon2 == std::string::npos ? std::string::npos : colon2 - colon - 1));
    const std::size_t factor = colon2 == std::string::npos ? 2 : parse_size(item.substr(colon2 + 1));
    if (factor < 2) fail("--sizes: range '" + item + "' needs a factor of at least 2");
    if (start == 0) fail("--sizes: range '" + item + "' cannot start at 0");
    if (start > stop) fail("--sizes: range '" + item + "' has start > stop");
    for (std::size_t s = start; s <= stop; s *= factor) {
      sizes.push_back(s);
      if (s > std::numeric_limits<std::size_t>::max() / factor) break;
    }
  }
  return sizes;
}

namespace {

// Values are collected as text (text_option.hpp) and converted in convert() below.
struct raw_options {
  text_value ops, types, variants, sizes, inputs, offsets, seed, mode, flush, samples, out, header, segments;
  bool json = false, verbose = false, full = false, no_hold = false, no_confirm = false, quick = false;
  std::vector<std::string> positional;
  std::string help_topic;  // reducelab help COMMAND
};


std::string input_kind_names(const char* separator) {
  std::string names;
  for (const input_kind k : all_input_kinds) names += (names.empty() ? "" : separator) + std::string(to_string(k));
  return names;
}

// The filters shared by several commands form one help group, so a command's help shows them apart from what
// the command itself does. Each command takes only the filters it honours: another's is an unknown option.
struct filter_set {
  bool variants = false, sizes = false, inputs = false, offsets = false, seed = false;
};

void add_filters(CLI::App& sub, raw_options& r, filter_set which) {
  const std::string group = "Filters (default: everything, or the command's default)";
  add_text(sub, "--ops,--functors", r.ops, "a,b", "functors by name (reducelab list shows them)")->group(group);
  add_text(sub, "--types", r.types, "a,b", "value types: int32,float,...")->group(group);
  if (which.variants)
    add_text(sub, "--variants", r.variants, "a,b", "backends: custom variants and baselines")->group(group);
  if (which.sizes)
    add_text(sub, "--sizes", r.sizes, "LIST", "element counts and geometric ranges: 0,2^20+7,1e6,2^10:2^28:4\n"
                                              "(start:stop[:factor], stop included, factor 2 by default)")
        ->group(group);
  if (which.inputs)
    add_text(sub, "--inputs", r.inputs, "a,b", "input kinds: " + input_kind_names(","))->group(group);
  if (which.offsets)
    add_text(sub, "--offsets", r.offsets, "a,b", "start offsets in elements (default: 0)")->group(group);
  if (which.seed) add_text(sub, "--seed", r.seed, "N", "input seed (default: 20261122)")->group(group);
}

std::unique_ptr<CLI::App> make_app(raw_options& r) {
  auto app = std::make_unique<CLI::App>(
      "reducelab - hand-written GPU reductions beside thrust::reduce and cub::DeviceReduce", "reducelab");
  app->require_subcommand(1);
  // As before CLI11: a repeated option takes its last value (CLI11 would refuse the repetition).
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Subcommands share the formatter, so this applies to every command's help.
  app->get_formatter()->column_width(26);
  app->get_formatter()->label("SUBCOMMAND", "COMMAND");

  auto* list = app->add_subcommand(
      "list", "functors (identity per type, commutativity), variants, types and the applicability matrix");
  list->add_flag("--json", r.json, "machine-readable output");
  add_filters(*list, r, {});

  auto* check = app->add_subcommand("check", "validate every backend against the host reference; exit 1 on a mismatch");
  check->add_flag("-v,--verbose", r.verbose, "one line per backend and size");
  add_filters(*check, r, {true, true, true, true, true});

  auto* compare = app->add_subcommand("compare", "validate, then time every backend side by side (JSON, CSV, report)");
  compare->add_flag("--full", r.full, "the full sweep instead of the quick default (see below)");
  add_text(*compare, "--mode", r.mode, "cold|hot|both",
           "cold (default): L2 flushed before every sample; hot: data resident in L2 (only where it fits)");
  add_text(*compare, "--flush", r.flush, "clean|memset",
           "L2 flush before a cold sample: clean (default) = memset, then a read pass\n"
           "so L2 holds no dirty lines; memset = NVBench's convention");
  add_text(*compare, "--samples", r.samples, "N",
           "samples per backend and row, at least " + std::to_string(min_compare_samples) + " (default: the timing policy's)");
  compare->add_flag("--no-hold", r.no_hold,
                    "do not hold the stream with the blocking kernel: only under a profiler such as\n"
                    "Nsight Compute, whose serialization would otherwise stall it");
  compare->add_flag("--no-confirm", r.no_confirm,
                    "skip the confirmation round (each row's best custom variant re-timed paired with CUB)");
  add_text(*compare, "--out", r.out, "DIR", "where results.json, results.csv, report.md and plots/ go\n"
                                            "(default: results/latest)");
  compare->add_flag("-v,--verbose", r.verbose, "one line per backend and size");
  add_filters(*compare, r, {true, true, false, false, true});
  compare->footer(
      "Sweep: by default the quick one: int32/float/double plus and maximum, argmax over float_idx32,\n"
      "the non-commutative affine_compose over affine32; 2^10 to 2^28 by factors of 16 (and 2^28).\n"
      "--full: every default functor and type, 2^10 to 2^28 by factors of 4.");

  auto* report = app->add_subcommand(
      "report", "regenerate the report and plots from a results file, or merge the parts of a split sweep");
  report->add_option("RESULTS.json", r.positional,
                     "results files written by compare; several are merged (same device, commit and timing)")
      ->type_name("");
  add_text(*report, "--out", r.out, "DIR", "where report.md and plots/ go (default: the results file's folder)");

  auto* diff = app->add_subcommand("diff", "two runs side by side: SAME, FASTER or SLOWER against the noise");
  diff->add_option("A.json B.json", r.positional, "two results files written by compare")->type_name("");

  auto* methods = app->add_subcommand(
      "methods", "time an empty kernel and cub::DeviceReduce::Sum under the old and the new timing method");
  add_text(*methods, "--sizes", r.sizes, "LIST", "element counts and ranges as for compare (default: the command's)");
  add_text(*methods, "--out", r.out, "DIR", "where the results go");

  auto* tune = app->add_subcommand(
      "tune", "choose reducelab::reduce's policies on this GPU: time candidate shapes per value size, write sm90.hpp");
  add_text(*tune, "--samples", r.samples, "N",
           "samples per candidate and size, at least " + std::to_string(min_compare_samples) +
               " (default: " + std::to_string(default_tune_samples) + ")");
  tune->add_flag("--quick", r.quick, "three multi-block sizes and five one-block sizes: a smoke run, not a tuning");
  add_text(*tune, "--out", r.out, "FILE", "write every candidate's timings and the choices as JSON");
  add_text(*tune, "--write-header", r.header, "FILE",
           "write a complete replacement for include/reducelab/tuning/sm90.hpp\n"
           "with its provenance (compute capability 9.x only)");
  add_text(*tune, "--seed", r.seed, "N", "input and shuffle seed (default: 20261122)");
  tune->footer(
      "Size classes and their workloads: 1 B logical_or/bool; 4 B plus/int32, plus/float; 8 B plus/double,\n"
      "affine_compose/affine32; 16 B argmax/double_idx64, affine_compose/affine64. 2 B and 32 B keep the fallback.\n"
      "Multi-block: 128/256/512 threads x 1/2/4/8 vectors per thread on the occupancy grid (512 threads also at\n"
      "2 blocks/SM), n = 2^14..2^28 values, every point cold and interleaved with CUB; the choice minimizes the\n"
      "geometric mean of median / best median. One block: 256/512/1024 threads over 256 B..64 KiB; its byte limit\n"
      "is the crossover with the chosen multi-block policy. Shapes that would not compile are left out.");

  // segmented check|compare: an action level below the command, so each action takes only the options it honours.
  auto* segmented = app->add_subcommand(
      "segmented", "segmented_reduce and reduce_by_key: validate (check) or time (compare) every backend per layout");
  segmented->require_subcommand(1);
  const char* segments_help = "comma list of segment layouts: uniform:L (L a count or 2^k), zipf:S, empty90, giant,\n"
                              "keys1 (default: uniform:1..2^20, zipf:1.2, empty90, giant; reduce_by_key:\n"
                              "keys1, uniform:8, uniform:256)";
  auto* seg_check = segmented->add_subcommand("check", "validate every backend against the host reference; exit 1 on a mismatch");
  add_text(*seg_check, "--segments", r.segments, "LIST", segments_help);
  add_filters(*seg_check, r, {true, true, false, false, true});
  auto* seg_compare = segmented->add_subcommand("compare", "validate, then time every backend interleaved (JSON, CSV)");
  add_text(*seg_compare, "--segments", r.segments, "LIST", segments_help);
  add_text(*seg_compare, "--samples", r.samples, "N",
           "samples per backend and case, at least " + std::to_string(min_compare_samples) + " (default: 25)");
  add_text(*seg_compare, "--out", r.out, "DIR", "where segmented.json and segmented.csv go (default: results/segmented)");
  add_filters(*seg_compare, r, {true, true, false, false, true});
  for (CLI::App* action : {seg_check, seg_compare}) action->allow_extras();

  auto* help = app->add_subcommand("help", "this text, or one command's: reducelab help compare");
  help->add_option("COMMAND", r.help_topic, "the command to explain")->type_name("");

  // Each command collects what it does not know instead of letting CLI11 throw, so the message names the
  // first unknown item and the command in our own words (see parse_options).
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) sub->allow_extras()->group("Commands");
  // Set last: a subcommand starts with a copy of its parent's footer.
  app->footer("One command's options: reducelab COMMAND --help");
  return app;
}

std::string command_list(CLI::App& app) {
  std::string names;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

CLI::App* find_command(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// CLI11 hands the next argument to a value option even when it is an option itself (--ops --types int32).
void check_values_are_not_options(const raw_options& r) {
  for (const auto* v : {&r.ops, &r.types, &r.variants, &r.sizes, &r.inputs, &r.offsets, &r.seed, &r.mode, &r.flush,
                        &r.samples, &r.out, &r.header, &r.segments})
    if (v->given && v->text.rfind("--", 0) == 0) fail("option " + v->option + " needs a value, not '" + v->text + "'");
}

std::string one_of(const text_value& v, const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), v.text) != choices.end()) return v.text;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail(v.option + ": '" + v.text + "' is not one of " + list);
}

options convert(const raw_options& r, const std::string& command) {
  options o;
  o.command = command;
  o.json = r.json;
  o.verbose = r.verbose;
  o.full = r.full;
  o.hold = !r.no_hold;
  o.confirm = !r.no_confirm;
  o.quick = r.quick;
  o.positional = r.positional;
  if (r.ops.given) o.ops = split_list(r.ops.text, "--ops");
  if (r.types.given) o.types = split_list(r.types.text, "--types");
  if (r.variants.given) o.variants = split_list(r.variants.text, "--variants");
  if (r.sizes.given) o.sizes = parse_size_list(r.sizes.text);
  if (r.inputs.given) {
    for (const auto& name : split_list(r.inputs.text, "--inputs")) {
      const auto* k = std::find_if(std::begin(all_input_kinds), std::end(all_input_kinds),
                                   [&](input_kind kind) { return name == to_string(kind); });
      if (k == std::end(all_input_kinds))
        fail("--inputs: unknown input kind '" + name + "' (" + input_kind_names(", ") + ")");
      o.inputs.push_back(*k);
    }
  }
  if (r.offsets.given)
    for (const auto& k : split_list(r.offsets.text, "--offsets")) o.offsets.push_back(parse_unsigned(k, "--offsets"));
  if (r.seed.given) o.seed = parse_unsigned(r.seed.text, "--seed");
  if (r.mode.given) o.mode = one_of(r.mode, {"cold", "hot", "both"});
  if (r.flush.given) o.flush = one_of(r.flush, {"clean", "memset"});
  if (r.samples.given) {
    o.samples = parse_unsigned(r.samples.text, "--samples");
    if (o.samples < min_compare_samples)
      fail("--samples: '" + r.samples.text + "' is below the minimum of " + std::to_string(min_compare_samples));
  }
  if (r.out.given) {
    if (r.out.text.empty()) fail(command == "tune" ? "--out: empty file name" : "--out: empty folder name");
    (command == "tune" ? o.out_file : o.out_dir) = r.out.text;  // tune writes one file, the others a folder
  }
  if (r.segments.given) {
    // Each entry is built once over no elements: that runs parse_layout's own check, so junk is refused here,
    // before any work, in the same words the command would use.
    for (const auto& spec : split_list(r.segments.text, "--segments")) {
      (void)segmented::parse_layout(spec, 0, o.seed);
      o.segments.push_back(spec);
    }
  }
  if (r.header.given) {
    if (r.header.text.empty()) fail("--write-header: empty file name");
    o.header_file = r.header.text;
  }
  // The parser checks the count so that a wrong one is refused before any work; run_report and run_diff
  // check it again for callers that build options by hand.
  if (command == "report" && o.positional.empty())
    fail("report needs a results file: reducelab report RESULTS.json [PART2.json ...] [--out DIR]");
  if (command == "report" && o.positional.size() > 1 && o.out_dir.empty())
    fail("report: merging " + std::to_string(o.positional.size()) + " results files needs --out DIR");
  if (command == "diff" && o.positional.size() != 2)
    fail("diff needs exactly two results files: reducelab diff A.json B.json (got " +
         std::to_string(o.positional.size()) + ")");
  return o;
}

}  // namespace

options parse_options(int argc, const char* const* argv) {
  if (argc < 2) fail("no command given (try: reducelab help)");
  raw_options raw;
  const auto app = make_app(raw);
  // Checked before CLI11 sees it, whose message ("The following argument was not expected") names no commands.
  const std::string first = argv[1];
  if (first != "-h" && first != "--help" && !find_command(*app, first))
    fail("unknown command '" + first + "' (commands: " + command_list(*app) + ")");

  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // help() shows the command given on the line, or the whole tool's when there is none.
    options o;
    o.command = "help";
    o.help_text = app->help();
    return o;
  } catch (const CLI::ArgumentMismatch& e) {
    // A value option left without one: either the last on the line or given as --opt= .
    CLI::App* sub = find_command(*app, first);
    for (int i = 2; sub && i < argc; ++i) {
      std::string a = argv[i];
      if (a.size() > 1 && a.back() == '=') a.pop_back();
      else if (i != argc - 1) continue;
      if (sub->get_option_no_throw(a)) fail("option " + a + " needs a value");
    }
    fail(e.what());
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    fail(message);
  }

  CLI::App* sub = app->get_subcommands().front();
  std::string action;
  if (sub->get_name() == "segmented") {  // the action is the command's own subcommand
    sub = sub->get_subcommands().front();
    action = sub->get_name();
  }
  const std::string label = action.empty() ? sub->get_name() : "segmented " + action;
  check_values_are_not_options(raw);
  const std::vector<std::string> extras = sub->remaining();
  if (!extras.empty()) {
    const std::string& x = extras.front();
    const bool looks_like_option = x.size() > 1 && x[0] == '-' && !std::isdigit(static_cast<unsigned char>(x[1]));
    if (looks_like_option)
      fail("unknown option '" + x.substr(0, x.find('=')) + "' for '" + label + "' (see: reducelab " + label +
           " --help)");
    fail("unexpected argument '" + x + "' for '" + label + "'");
  }

  if (sub->get_name() == "help") {
    options o;
    o.command = "help";
    if (raw.help_topic.empty()) {
      o.help_text = usage();  // app->help() would now show the help command's own help
    } else {
      CLI::App* topic = find_command(*app, raw.help_topic);
      if (!topic) fail("unknown command '" + raw.help_topic + "' (commands: " + command_list(*app) + ")");
      o.help_text = topic->help(app->get_name());
    }
    return o;
  }
  if (!action.empty()) {
    options o = convert(raw, "segmented");
    o.action = action;
    return o;
  }
  return convert(raw, sub->get_name());
}

std::string usage() {
  raw_options raw;
  return make_app(raw)->help();
}

}  // namespace reducelab::cli
