#pragma once
// Progress of a batch for people and for logs: on a terminal, one bar that
// redraws in place; otherwise (a pipe, a CI log) one plain line per item, so
// the output reads the same after the fact. Thread-safe: workers report as
// they finish.

#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace ks::cli {

class Progress {
 public:
  /// Reports to `out`; draws a bar when `out` is a terminal.
  Progress(size_t total, std::FILE* out);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// `item` finished; `line` says how (one line, no newline). Both are made
  /// printable (excerpt): they name files and quote their names.
  void finished(const std::string& item, const std::string& line);

 private:
  void draw_bar(const std::string& item);

  std::mutex m_mutex;
  std::FILE* m_out;
  size_t m_total;
  size_t m_done = 0;
  bool m_terminal;
};

}  // namespace ks::cli
