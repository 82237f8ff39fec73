// Writing a results or report file: one function, so that a full disk or a read-only folder is an error that
// names the file, never a silently missing or truncated one.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace reducelab {

/// Write `text` to `path` (created or replaced); throws std::runtime_error naming the file when it cannot.
inline void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw std::runtime_error("cannot write '" + path.string() + "'");
}

}  // namespace reducelab
