#include "app/cli/progress.h"

#include <unistd.h>

#include "keystream/clip/excerpt.h"

namespace ks::cli {

namespace {
constexpr size_t kBarWidth = 30;
// Printable, not cut: a line joins one_line()s, each bounded already.
std::string printable(const std::string& text) {
  return excerpt(text, std::string::npos);
}
}

Progress::Progress(size_t total, std::FILE* out)
    : m_out(out), m_total(total), m_terminal(::isatty(::fileno(out)) == 1) {
  if (m_terminal) draw_bar("");
}

Progress::~Progress() {
  if (m_terminal) {
    std::fputs("\r\033[K", m_out);  // leave the terminal clean for the summary
    std::fflush(m_out);
  }
}

void Progress::finished(const std::string& item, const std::string& line) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  ++m_done;
  if (m_terminal) {
    // The finished line scrolls up; the bar stays on the last line.
    std::fprintf(m_out, "\r\033[K%s\n", printable(line).c_str());
    draw_bar(item);
  } else {
    std::fprintf(m_out, "[%zu/%zu] %s\n", m_done, m_total, printable(line).c_str());
  }
  std::fflush(m_out);
}

void Progress::draw_bar(const std::string& item) {
  const size_t filled = m_total ? kBarWidth * m_done / m_total : kBarWidth;
  std::string bar(filled, '#');
  bar.resize(kBarWidth, '.');
  std::fprintf(m_out, "\r\033[K[%s] %zu/%zu %s", bar.c_str(), m_done, m_total, printable(item).c_str());
  std::fflush(m_out);
}

}  // namespace ks::cli
