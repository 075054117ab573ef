#include "keystream/io/assimp_zae.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "keystream/io/assimp_guard.h"

namespace ks::assimp {

namespace {

constexpr uint32_t kEndSignature = 0x06054b50;    // end of central directory record
constexpr uint32_t kEntrySignature = 0x02014b50;  // central directory file header
constexpr uint32_t kLocalSignature = 0x04034b50;  // local file header
constexpr uint32_t kZip64Locator = 0x07064b50;    // Zip64 end of central directory locator
constexpr size_t kEndBytes = 22, kEntryBytes = 46, kLocalBytes = 30;
constexpr size_t kMaxCommentBytes = 0xffff;
constexpr uint16_t kStored = 0, kDeflated = 8;
constexpr uint16_t kEncrypted = 1;  // general purpose flag bit 0

uint32_t le(std::string_view bytes, size_t offset, size_t width) {
  uint32_t v = 0;
  for (size_t b = 0; b < width; ++b) v |= uint32_t{static_cast<unsigned char>(bytes[offset + b])} << (8 * b);
  return v;
}

struct Entry {
  std::string name;
  uint16_t flags = 0, method = 0;
  uint32_t crc = 0, stored = 0, size = 0, local_offset = 0;
};

// The central directory's entries, checked against the file and the bounds.
Result<std::vector<Entry>> read_directory(std::string_view zip) {
  if (zip.size() < kEndBytes) return Error{"the zip archive is cut off: it has no end of central directory record"};
  std::optional<size_t> end;
  const size_t lowest = zip.size() - kEndBytes > kMaxCommentBytes ? zip.size() - kEndBytes - kMaxCommentBytes : 0;
  for (size_t at = zip.size() - kEndBytes + 1; at-- > lowest;) {
    if (le(zip, at, 4) == kEndSignature) {
      end = at;
      break;
    }
  }
  if (!end) return Error{"not a zip archive: it has no end of central directory record"};
  if (*end >= 20 && le(zip, *end - 20, 4) == kZip64Locator) return Error{"Zip64 archives are not read"};
  if (le(zip, *end + 4, 2) != 0 || le(zip, *end + 6, 2) != 0) return Error{"multi-disk zip archives are not read"};
  const uint32_t count = le(zip, *end + 10, 2), directory_bytes = le(zip, *end + 12, 4);
  const uint32_t directory = le(zip, *end + 16, 4);
  if (directory > *end || directory_bytes > *end - directory) {
    return Error{"the zip archive's central directory lies outside the file" + at(*end)};
  }
  std::vector<Entry> entries;
  uint64_t claimed = 0;
  size_t offset = directory;
  const size_t directory_end = directory + directory_bytes;
  for (uint32_t e = 0; e < count; ++e) {
    if (directory_end - offset < kEntryBytes || le(zip, offset, 4) != kEntrySignature) {
      return Error{"the zip archive's central directory entry " + std::to_string(e) + " is broken" + at(offset)};
    }
    Entry entry;
    entry.flags = static_cast<uint16_t>(le(zip, offset + 8, 2));
    entry.method = static_cast<uint16_t>(le(zip, offset + 10, 2));
    entry.crc = le(zip, offset + 16, 4);
    entry.stored = le(zip, offset + 20, 4);
    entry.size = le(zip, offset + 24, 4);
    entry.local_offset = le(zip, offset + 42, 4);
    const size_t name_bytes = le(zip, offset + 28, 2);
    const size_t trailer = name_bytes + le(zip, offset + 30, 2) + le(zip, offset + 32, 2);
    if (trailer > directory_end - offset - kEntryBytes) {
      return Error{"the zip archive's central directory entry " + std::to_string(e) + " runs past it" + at(offset)};
    }
    entry.name = std::string(zip.substr(offset + kEntryBytes, name_bytes));
    const std::string named = "zip entry '" + entry.name.substr(0, 200) + "'";
    if (entry.stored == UINT32_MAX || entry.size == UINT32_MAX || entry.local_offset == UINT32_MAX) {
      return Error{named + " is in Zip64 form, which is not read"};
    }
    if (entry.local_offset >= directory || entry.stored > directory - entry.local_offset) {
      return Error{named + " lies outside the archive's data" + at(offset)};
    }
    const bool possible = entry.method == kStored ? entry.size == entry.stored
                                                  : entry.size <= kMaxDeflateRatio * uint64_t{entry.stored} + 1024;
    if (!possible) {
      return Error{named + " claims " + std::to_string(entry.size) + " bytes, more than its " +
                   std::to_string(entry.stored) + " stored bytes can hold"};
    }
    claimed += entry.size;
    if (claimed > kMaxInputBytes) {
      return Error{"the zip archive's entries claim more than the " + std::to_string(kMaxInputBytes >> 20) +
                   " MiB a Collada file may have"};
    }
    entries.push_back(std::move(entry));
    offset += kEntryBytes + trailer;
  }
  return entries;
}

// The bytes of `entry`, inflated.
Result<std::string> read_entry(std::string_view zip, const Entry& entry) {
  const std::string named = "zip entry '" + entry.name.substr(0, 200) + "'";
  if (entry.flags & kEncrypted) return Error{named + " is encrypted"};
  if (entry.method != kStored && entry.method != kDeflated) {
    return Error{named + " is compressed with method " + std::to_string(entry.method) + ", not stored or deflated"};
  }
  const size_t local = entry.local_offset;
  if (zip.size() - local < kLocalBytes || le(zip, local, 4) != kLocalSignature) {
    return Error{named + ": its local header is broken" + at(local)};
  }
  const size_t data = local + kLocalBytes + le(zip, local + 26, 2) + le(zip, local + 28, 2);
  if (data > zip.size() || entry.stored > zip.size() - data) return Error{named + ": its data runs past the file"};
  const std::string_view stored = zip.substr(data, entry.stored);
  std::string bytes;
  if (entry.method == kStored) {
    bytes = std::string(stored);
  } else {
    bytes.resize(entry.size);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return Error{named + ": zlib cannot start inflating"};
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data()));
    stream.avail_in = static_cast<uInt>(stored.size());
    stream.next_out = reinterpret_cast<Bytef*>(bytes.data());
    stream.avail_out = static_cast<uInt>(bytes.size());
    const int status = inflate(&stream, Z_FINISH);
    const uLong inflated = stream.total_out;
    inflateEnd(&stream);
    if (status != Z_STREAM_END || inflated != entry.size) {
      return Error{named + " does not inflate to the " + std::to_string(entry.size) + " bytes it claims"};
    }
  }
  const uLong crc =
      crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
  if (crc != entry.crc) return Error{named + " fails its CRC-32 check"};
  return bytes;
}

// The path <dae_root> names (percent-decoded, without a leading "./"); empty when there is none.
std::string dae_root(std::string_view manifest) {
  const size_t open = manifest.find("<dae_root>");
  if (open == std::string_view::npos) return {};
  std::string_view path = manifest.substr(open + 10);
  path = path.substr(0, std::min(path.find('<'), path.size()));
  const size_t first = path.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  path = path.substr(first, path.find_last_not_of(" \t\r\n") - first + 1);
  if (path.starts_with("./")) path.remove_prefix(2);
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string decoded;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 2 < path.size() && hex(path[i + 1]) >= 0 && hex(path[i + 2]) >= 0) {
      decoded += static_cast<char>(hex(path[i + 1]) * 16 + hex(path[i + 2]));
      i += 2;
    } else {
      decoded += path[i];
    }
  }
  return decoded;
}

}  // namespace

Result<std::string> read_zae_document(std::string_view zip) {
  Result<std::vector<Entry>> entries = read_directory(zip);
  if (!entries) return Error{entries.error()};
  std::vector<Entry>& all = entries.value();
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  const auto named = [&](std::string_view name) {
    return std::find_if(all.begin(), all.end(), [&](const Entry& e) { return e.name == name; });
  };
  std::string document;
  if (const auto manifest = named("manifest.xml"); manifest != all.end()) {
    Result<std::string> text = read_entry(zip, *manifest);
    if (!text) return Error{text.error()};
    document = dae_root(text.value());
    if (document.empty()) return Error{"the .zae's manifest.xml names no <dae_root> document"};
  } else {
    const auto dae = std::find_if(all.begin(), all.end(), [](const Entry& e) {
      std::string lower = e.name;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      return lower.ends_with(".dae");
    });
    if (dae == all.end()) return Error{"the .zae holds no .dae document and no manifest.xml naming one"};
    document = dae->name;
  }
  const auto entry = named(document);
  if (entry == all.end())
    return Error{"the .zae has no entry '" + document.substr(0, 200) + "', its manifest's document"};
  return read_entry(zip, *entry);
}

}  // namespace ks::assimp
