#include "keystream/io/stream_names.h"

#include <map>

namespace ks {

namespace {

// ASCII only, whatever the locale: the CLI and the studio must agree.
bool ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

std::string file_safe(const std::string& name) {
  std::string out;
  for (const char c : name) out += ascii_alnum(c) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "unnamed" : out;
}

std::string lowercase(std::string text) {
  for (char& c : text) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  return text;
}

std::string file_key(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return lowercase((ec ? path : canonical).string());
}

std::vector<std::string> animation_file_names(const std::vector<std::string>& names) {
  std::vector<std::string> safe;
  std::map<std::string, int> uses;
  for (const std::string& name : names) {
    safe.push_back(file_safe(name));
    ++uses[lowercase(safe.back())];
  }
  for (size_t a = 0; a < safe.size(); ++a) {
    if (uses[lowercase(safe[a])] > 1) safe[a] += "_" + std::to_string(a);
  }
  return safe;
}

std::filesystem::path animation_stream_path(const std::filesystem::path& folder, const std::filesystem::path& source,
                                            const std::string& file_name_part) {
  return folder / (source.stem().string() + "." + file_name_part + ".ks");
}

}  // namespace ks
