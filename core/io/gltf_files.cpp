#include "keystream/io/gltf_files.h"

#include <sys/stat.h>
#include <tiny_gltf.h>

#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "keystream/clip/excerpt.h"
#include "keystream/io/file_io.h"

namespace ks::gltf {

namespace fs = std::filesystem;

namespace {

int hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;  // as tinygltf's decoder takes any other character
}

// True when `uri` starts with a scheme ("http:", "file:", "data:").
bool has_scheme(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (size_t i = 1; i < uri.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(uri[i]);
    if (c == ':') return true;
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

// Bytes a base64 data URI's payload decodes to; -1 when it is not base64.
int64_t data_uri_bytes(std::string_view uri) {
  const size_t comma = uri.find(',');
  if (comma == std::string_view::npos || uri.substr(0, comma).find(";base64") == std::string_view::npos) return -1;
  const std::string_view payload = uri.substr(comma + 1);
  if (payload.size() % 4 != 0) return -1;
  size_t padding = 0;
  for (size_t i = payload.size(); i > 0 && payload[i - 1] == '=' && padding < 2; --i) ++padding;
  return static_cast<int64_t>(payload.size() / 4 * 3 - padding);
}

// The file a URI names, checked against `rules`: its canonical path, or an
// error saying what is wrong (`what` names the URI's owner, e.g. "buffer 0").
Result<fs::path> resolve(std::string_view uri, const fs::path& folder, const ExternalFileRules& rules,
                         const std::string& what) {
  const std::string quoted = what + "'s uri '" + excerpt(uri) + "'";
  if (has_scheme(uri)) return Error{quoted + " is not a file path: only files beside the glTF and data URIs are read"};
  const std::string decoded = decode_uri(uri);
  if (decoded.empty() || decoded.find('\0') != std::string::npos) return Error{quoted + " is not a file path"};
  const fs::path relative(decoded);
  if (relative.is_absolute() && !rules.allow_outside) {
    return Error{quoted + " is an absolute path; files must be beside the glTF (--allow-outside-uris reads it)"};
  }
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(folder / relative, ec);
  if (ec) return Error{quoted + " cannot be resolved: " + ec.message()};
  if (!rules.allow_outside) {
    const fs::path inside = target.lexically_relative(folder);
    if (inside.empty() || *inside.begin() == "..") {
      return Error{quoted + " leads outside the glTF's folder (--allow-outside-uris reads it)"};
    }
  }
  return target;
}

bool file_exists(const std::string& path, void* plan) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);
  return !ec && static_cast<const ExternalFiles*>(plan)->files().count(target.string()) != 0;
}

std::string expand_path(const std::string& path, void*) { return path; }  // no "~" or variables

bool read_planned_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* plan) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);
  const auto& files = static_cast<const ExternalFiles*>(plan)->files();
  const auto found = ec ? files.end() : files.find(target.string());
  if (found == files.end()) {
    if (err) *err += "not a file this glTF may read";
    return false;
  }
  // Only the bytes planned: a file that grew since is not read further.
  const Result<std::string> bytes = read_file_prefix(target, found->second);
  if (!bytes) {
    if (err) *err += excerpt(bytes.error(), 200);
    return false;
  }
  out->assign(bytes.value().begin(), bytes.value().end());
  return true;
}

bool refuse_write(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  if (err) *err += "a glTF load writes no files";
  return false;
}

}  // namespace

std::string decode_uri(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '+') {
      out += ' ';
    } else if (uri[i] == '%' && uri.size() > i + 2) {
      out += static_cast<char>(hex_digit(static_cast<unsigned char>(uri[i + 1])) * 16 +
                               hex_digit(static_cast<unsigned char>(uri[i + 2])));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

std::string loader_message(std::string_view text) {
  std::string joined;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    if (!line.empty()) joined += (joined.empty() ? "" : "; ") + std::string(line);
    start = end + 1;
  }
  return excerpt(joined, 300);
}

Result<ExternalFiles> ExternalFiles::plan(const nlohmann::json& document, const fs::path& gltf_path,
                                          const ExternalFileRules& rules) {
  ExternalFiles plan;
  if (!document.is_object()) return plan;  // the loader refuses it and reads nothing
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(gltf_path, ec).parent_path(), ec);
  if (ec) return Error{"cannot resolve the glTF's folder: " + ec.message()};

  const auto buffers = document.find("buffers");
  if (buffers != document.end() && buffers->is_array()) {
    for (size_t b = 0; b < buffers->size(); ++b) {
      const nlohmann::json& buffer = (*buffers)[b];
      if (!buffer.is_object() || !buffer.contains("uri") || !buffer["uri"].is_string()) continue;
      const std::string& uri = buffer["uri"].get_ref<const std::string&>();
      const std::string what = "buffer " + std::to_string(b);
      const uint64_t declared = buffer.value("byteLength", uint64_t{0});
      if (uri.rfind("data:", 0) == 0) {
        const int64_t bytes = data_uri_bytes(uri);
        const bool octets = uri.rfind("data:application/octet-stream;", 0) == 0 ||
                            uri.rfind("data:application/gltf-buffer;", 0) == 0;
        if (!octets || bytes < 0) {
          return Error{what + "'s data URI '" + excerpt(uri) +
                       "' is not base64 application/octet-stream or application/gltf-buffer data"};
        }
        if (static_cast<uint64_t>(bytes) != declared) {
          return Error{what + "'s data URI holds " + std::to_string(bytes) + " bytes, its byteLength says " +
                       std::to_string(declared)};
        }
        continue;
      }
      Result<fs::path> target = resolve(uri, folder, rules, what);
      if (!target) return Error{target.error()};
      struct stat info {};
      if (::stat(target.value().c_str(), &info) != 0) {
        return Error{what + "'s file '" + excerpt(uri) + "' does not exist"};
      }
      if (!S_ISREG(info.st_mode)) {
        return Error{what + "'s file '" + excerpt(uri) + "' is " + file_type_name(info.st_mode) + ", not a file"};
      }
      const uintmax_t size = static_cast<uintmax_t>(info.st_size);
      if (size != declared) {
        return Error{what + "'s file '" + excerpt(uri) + "' holds " + std::to_string(size) +
                     " bytes, its byteLength says " + std::to_string(declared)};
      }
      plan.m_files[target.value().string()] = declared;
    }
  }

  const auto images = document.find("images");
  if (rules.read_images && images != document.end() && images->is_array()) {
    for (size_t i = 0; i < images->size(); ++i) {
      const nlohmann::json& image = (*images)[i];
      if (!image.is_object() || !image.contains("uri") || !image["uri"].is_string()) continue;
      const std::string& uri = image["uri"].get_ref<const std::string&>();
      if (uri.rfind("data:", 0) == 0) continue;  // decoded from the JSON, no file
      const std::string what = "image " + std::to_string(i);
      Result<fs::path> target = resolve(uri, folder, rules, what);
      if (!target) return Error{target.error()};
      struct stat info {};
      if (::stat(target.value().c_str(), &info) != 0) continue;  // a missing texture keeps its uri
      if (!S_ISREG(info.st_mode)) {
        return Error{what + "'s file '" + excerpt(uri) + "' is " + file_type_name(info.st_mode) + ", not a file"};
      }
      const uintmax_t size = static_cast<uintmax_t>(info.st_size);
      if (size > kMaxReadFileBytes) return Error{what + "'s file '" + excerpt(uri) + "' is larger than 1 GiB"};
      plan.m_files[target.value().string()] = size;
    }
  }
  return plan;
}

void ExternalFiles::install(tinygltf::TinyGLTF& loader) {
  loader.SetFsCallbacks(tinygltf::FsCallbacks{&file_exists, &expand_path, &read_planned_file, &refuse_write, this});
}

}  // namespace ks::gltf
