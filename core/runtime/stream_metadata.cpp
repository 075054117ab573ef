#include "core/runtime/stream_metadata.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

namespace ks {

namespace {
constexpr uint32_t kNotABone = UINT32_MAX;  // read_string's string is not a bone's name
}  // namespace

Result<StreamMetadata> parse_stream_metadata(std::span<const uint8_t> m, uint32_t bone_count) {
  // Name count u32, error mode u8, five f32 tolerances, override count u32.
  constexpr uint32_t kFixedBytes = 29;
  constexpr uint32_t kOverrideBytes = 10;  // u16 bone, f32 tolerance, f32 shell distance
  if (m.size() < kFixedBytes) return Error{"metadata is truncated (" + std::to_string(m.size()) + " bytes)"};
  uint32_t name_count;
  std::memcpy(&name_count, m.data(), 4);
  if (name_count != 0 && name_count != bone_count) {
    return Error{"metadata names " + std::to_string(name_count) + " bones, the stream has " + std::to_string(bone_count)};
  }
  StreamMetadata meta;
  if (m[4] > 1) return Error{"metadata holds the unknown error mode " + std::to_string(m[4])};
  meta.local_mode = m[4] == 1;
  float* values[] = {&meta.tolerance_m, &meta.shell_distance_m, &meta.translation_error_m, &meta.rotation_error_deg,
                     &meta.scale_error};
  for (int i = 0; i < 5; ++i) {
    std::memcpy(values[i], m.data() + 5 + 4 * i, 4);
    if (!std::isfinite(*values[i]) || *values[i] < 0.f) return Error{"metadata holds a tolerance that is not a number >= 0"};
  }
  uint32_t override_count;
  std::memcpy(&override_count, m.data() + 25, 4);
  if (override_count > bone_count) {
    return Error{"metadata holds " + std::to_string(override_count) + " bone tolerances for " +
                 std::to_string(bone_count) + " bones"};
  }
  uint64_t at = kFixedBytes;
  // `what` names the string, followed by `bone` when it is a bone's name: the
  // description is built only for a message (a stream may name 65,535 bones).
  auto read_string = [&](std::string& out, std::string_view what, uint32_t bone = kNotABone) -> Status {
    const auto described = [&] {
      return std::string(what) + (bone == kNotABone ? std::string() : " " + std::to_string(bone));
    };
    if (m.size() - at < 2) return Error{"metadata is truncated at the " + described()};
    uint16_t length;
    std::memcpy(&length, m.data() + at, 2);
    at += 2;
    if (m.size() - at < length) return Error{"metadata is truncated at the " + described()};
    out.assign(reinterpret_cast<const char*>(m.data() + at), length);
    at += length;
    if (out.find('\0') != std::string::npos) return Error{"metadata: the " + described() + " holds a NUL byte"};
    return {};
  };
  if (Status s = read_string(meta.clip_name, "clip name"); !s) return Error{s.error()};
  if (Status s = read_string(meta.source_name, "source name"); !s) return Error{s.error()};
  meta.bone_names.resize(name_count);
  for (uint32_t b = 0; b < name_count; ++b) {
    if (Status s = read_string(meta.bone_names[b], "name of bone", b); !s) return Error{s.error()};
  }
  if (m.size() - at != uint64_t{override_count} * kOverrideBytes) {
    return Error{"metadata has " + std::to_string(m.size() - at) + " bytes after the names, expected " +
                 std::to_string(uint64_t{override_count} * kOverrideBytes) + " for its bone tolerances"};
  }
  meta.bone_tolerances.resize(override_count);
  std::vector<bool> overridden(bone_count, false);  // override_count <= bone_count: bounded
  for (StreamBoneTolerance& o : meta.bone_tolerances) {
    uint16_t bone;
    std::memcpy(&bone, m.data() + at, 2);
    std::memcpy(&o.tolerance_m, m.data() + at + 2, 4);
    std::memcpy(&o.shell_distance_m, m.data() + at + 6, 4);
    at += kOverrideBytes;
    o.bone = bone;
    if (bone >= bone_count || !std::isfinite(o.tolerance_m) || !(o.tolerance_m > 0.f) ||
        !std::isfinite(o.shell_distance_m) || o.shell_distance_m < 0.f) {
      return Error{"metadata holds an invalid tolerance for bone " + std::to_string(bone)};
    }
    if (overridden[bone]) return Error{"metadata holds two tolerances for bone " + std::to_string(bone)};
    overridden[bone] = true;
  }
  return meta;
}

}  // namespace ks
