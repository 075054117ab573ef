#include "keystream/io/assimp_fbx_curves.h"

#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ks::assimp {

namespace {

constexpr double kHalfTurn = 180.0;

// Adds `value`'s step from `previous` (the curve's last value, if any) to
// `half_turns`.
Status add_step(double value, bool& has_previous, double& previous, double& half_turns) {
  if (!std::isfinite(value)) return Error{"an FBX animation curve holds a value that is not a finite number"};
  if (has_previous) half_turns += std::fabs(value - previous) / kHalfTurn;
  previous = value;
  has_previous = true;
  if (half_turns > kMaxFbxCurveHalfTurns) {
    return Error{"the FBX animation curves turn more than " + std::to_string(static_cast<long>(kMaxFbxCurveHalfTurns)) +
                 " half turns in all (a value of " + std::to_string(value) + "), which assimp would expand key by key"};
  }
  return {};
}

}  // namespace

Status check_binary_key_values(std::string_view bytes, size_t offset, size_t end, double& half_turns) {
  // One array property: type 'f' (float) or 'd' (double), u32 length,
  // encoding (0 raw, 1 deflate) and stored bytes, then the data.
  if (end - offset < 13 || (bytes[offset] != 'f' && bytes[offset] != 'd')) return {};
  const size_t element = bytes[offset] == 'd' ? 8 : 4;
  uint32_t length = 0, encoding = 0, stored = 0;
  std::memcpy(&length, bytes.data() + offset + 1, 4);
  std::memcpy(&encoding, bytes.data() + offset + 5, 4);
  std::memcpy(&stored, bytes.data() + offset + 9, 4);
  if (stored > end - offset - 13) return {};  // the record check reports it
  const unsigned char* data = reinterpret_cast<const unsigned char*>(bytes.data() + offset + 13);
  // check_fbx_properties bounds every array's inflated size (kMaxFbxArrayBytes).
  std::vector<unsigned char> plain(static_cast<size_t>(length) * element);
  if (encoding == 0) {
    if (plain.size() != stored) return {};
    std::memcpy(plain.data(), data, plain.size());
  } else {
    uLongf size = static_cast<uLongf>(plain.size());
    if (uncompress(plain.data(), &size, data, stored) != Z_OK || size != plain.size()) {
      return Error{"a binary FBX animation curve's values do not inflate to their " + std::to_string(length) +
                   " values"};
    }
  }
  bool has_previous = false;
  double previous = 0.0;
  for (size_t i = 0; i < length; ++i) {
    double value;
    if (element == 8) {
      std::memcpy(&value, plain.data() + i * 8, 8);
    } else {
      float f;
      std::memcpy(&f, plain.data() + i * 4, 4);
      value = f;
    }
    if (Status s = add_step(value, has_previous, previous, half_turns); !s) return s;
  }
  return {};
}

Status check_ascii_key_values(std::string_view text, size_t at, double& half_turns) {
  const size_t open = text.find('{', at);
  if (open == std::string_view::npos) return {};
  const size_t close = text.find('}', open);
  const size_t a = text.find("a:", open);
  if (a == std::string_view::npos || close == std::string_view::npos || a > close) return {};
  // strtod needs a terminated string: the values, copied once.
  const std::string values(text.substr(a + 2, close - a - 2));
  const char* p = values.c_str();
  bool has_previous = false;
  double previous = 0.0;
  while (*p != '\0') {
    char* next = nullptr;
    const double value = std::strtod(p, &next);
    if (next == p) {
      ++p;  // a separator (comma, space, line break)
      continue;
    }
    if (Status s = add_step(value, has_previous, previous, half_turns); !s) return s;
    p = next;
  }
  return {};
}

}  // namespace ks::assimp
