#include "reducelab/cli/options.hpp"

#include "reducelab/core/error.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace reducelab::cli {

namespace {

[[noreturn]] void fail(const std::string& message) { throw usage_error(message); }

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

}  // namespace

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

options parse_options(int argc, const char* const* argv) {
  options o;
  if (argc < 2) fail("no command given (try: reducelab help)");
  o.command = argv[1];
  const std::vector<std::string> commands = {"list", "check", "compare", "report", "diff", "help", "--help", "-h"};
  if (std::find(commands.begin(), commands.end(), o.command) == commands.end())
    fail("unknown command '" + o.command + "' (commands: list, check, compare, report, diff, help)");
  if (o.command == "--help" || o.command == "-h") o.command = "help";
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (arg.rfind("--", 0) == 0) {
      if (const auto eq = arg.find('='); eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
    } else {
      o.positional.push_back(arg);
      continue;
    }
    auto take = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) fail("option " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--json") {
      o.json = true;
    } else if (arg == "--verbose" || arg == "-v") {
      o.verbose = true;
    } else if (arg == "--ops" || arg == "--functors") {
      o.ops = split_list(take(), arg);
    } else if (arg == "--types") {
      o.types = split_list(take(), arg);
    } else if (arg == "--variants") {
      o.variants = split_list(take(), arg);
    } else if (arg == "--sizes") {
      o.sizes = parse_size_list(take());
    } else if (arg == "--inputs") {
      for (const auto& k : split_list(take(), arg)) {
        if (k == "random") o.inputs.push_back(input_kind::random);
        else if (k == "constant") o.inputs.push_back(input_kind::constant);
        else if (k == "adversarial") o.inputs.push_back(input_kind::adversarial);
        else if (k == "last_only") o.inputs.push_back(input_kind::last_only);
        else fail("--inputs: unknown input kind '" + k + "' (random, constant, adversarial, last_only)");
      }
    } else if (arg == "--offsets") {
      for (const auto& k : split_list(take(), arg)) o.offsets.push_back(parse_unsigned(k, "--offsets"));
    } else if (arg == "--seed") {
      o.seed = parse_unsigned(take(), "--seed");
    } else if (arg == "--mode") {
      o.mode = take();
      if (o.mode != "cold" && o.mode != "hot" && o.mode != "both")
        fail("--mode: '" + o.mode + "' is not one of cold, hot, both");
    } else if (arg == "--out") {
      o.out_dir = take();
      if (o.out_dir.empty()) fail("--out: empty folder name");
    } else {
      fail("unknown option '" + arg + "' for '" + o.command + "' (see: reducelab help)");
    }
  }
  if (o.command != "diff" && o.command != "report" && !o.positional.empty())
    fail("unexpected argument '" + o.positional.front() + "'");
  return o;
}

std::string usage() {
  return R"(reducelab - hand-written GPU reductions beside thrust::reduce and cub::DeviceReduce

usage: reducelab <command> [options]

commands:
  list     [--json]           functors (identity per type, commutativity), variants, types, applicability
  check    [filters]          validate every backend against the host reference; non-zero exit on a mismatch
  compare  [filters] [--mode cold|hot|both] [--out DIR]
                              validate, then time every backend side by side (JSON, CSV, Markdown report)
  report   RESULTS.json [--out DIR]   regenerate the Markdown report and plots from a results file
  diff     A.json B.json      two runs side by side: SAME, FASTER or SLOWER against the noise
  help                        this text

filters:
  --ops a,b        functors (reducelab list shows them)      --types int32,float   value types
  --variants a,b   backends (custom variants and baselines)  --sizes 0,1,2^20+7,2^10:2^28:2
  --inputs random,constant,adversarial                       --offsets 0,1 (elements)
  --seed N         input seed                                --verbose  one line per backend and size
)";
}

}  // namespace reducelab::cli
