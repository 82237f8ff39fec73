// How both command-line tools (reducelab, reducelab-multigpu) take option values: CLI11 collects every value as
// text, converted after parsing, so one message style names every bad value and `--help` anywhere on the line wins
// over a bad value (CLI11 runs option callbacks before it looks at the help flag, so a conversion there would
// pre-empt the help).
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace reducelab::cli {

struct text_value {
  std::string option;  // its first name, for messages
  std::string text;
  bool given = false;
};

/// Add an option (names "--a,--b") whose value is kept as text in `v`.
CLI::Option* add_text(CLI::App& app, const std::string& names, text_value& v, const std::string& type,
                      const std::string& description);

/// A non-negative decimal integer; usage_error naming `what` otherwise (or when it overflows 64 bits).
std::uint64_t parse_unsigned(const std::string& text, const std::string& what);

}  // namespace reducelab::cli
