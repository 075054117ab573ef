#include "keystream/runtime/stream_metadata.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

namespace ks {

namespace {

constexpr uint32_t kNotABone = UINT32_MAX;  // read_string's string is not a bone's name

// The scalar tracks' part, from `at` on (stream_format.h).
template <class ReadString>
Status read_scalars(std::span<const uint8_t> m, uint64_t& at, uint32_t scalar_count, ReadString& read_string,
                    StreamMetadata& meta) {
  constexpr uint32_t kFixedBytes = 8;       // u32 count, f32 default precision
  constexpr uint32_t kLeastEntryBytes = 13;  // two empty strings, f32, u8, u32
  if (m.size() - at < kFixedBytes) return Error{"metadata is truncated at the scalar tracks"};
  uint32_t count;
  std::memcpy(&count, m.data() + at, 4);
  std::memcpy(&meta.scalar_precision, m.data() + at + 4, 4);
  at += kFixedBytes;
  if (count != 0 && count != scalar_count) {
    return Error{"metadata describes " + std::to_string(count) + " scalar tracks, the stream has " +
                 std::to_string(scalar_count)};
  }
  if (!std::isfinite(meta.scalar_precision) || meta.scalar_precision < 0.f) {
    return Error{"metadata holds a scalar precision that is not a number >= 0"};
  }
  if (m.size() - at < uint64_t{count} * kLeastEntryBytes) return Error{"metadata is truncated at the scalar tracks"};
  meta.scalars.resize(count);
  for (uint32_t s = 0; s < count; ++s) {
    StreamScalarInfo& info = meta.scalars[s];
    if (Status r = read_string(info.name, "name of scalar track", s); !r) return r;
    if (m.size() - at < 5) return Error{"metadata is truncated at scalar track " + std::to_string(s)};
    std::memcpy(&info.precision, m.data() + at, 4);
    info.target = m[at + 4];
    at += 5;
    if (!std::isfinite(info.precision) || !(info.precision > 0.f) || info.target > 1) {
      return Error{"metadata holds an invalid precision or target for scalar track " + std::to_string(s)};
    }
    if (Status r = read_string(info.node, "node of scalar track", s); !r) return r;
    if (m.size() - at < 4) return Error{"metadata is truncated at scalar track " + std::to_string(s)};
    std::memcpy(&info.target_index, m.data() + at, 4);
    at += 4;
  }
  return {};
}

}  // namespace

Result<StreamMetadata> parse_stream_metadata(std::span<const uint8_t> m, uint32_t bone_count, uint32_t scalar_count,
                                             uint32_t rest_value_count) {
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
  if (m.size() - at < uint64_t{override_count} * kOverrideBytes) {
    return Error{"metadata has " + std::to_string(m.size() - at) + " bytes after the names, too few for " +
                 std::to_string(override_count) + " bone tolerances"};
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
  if (m.size() - at < 1) return Error{"metadata is truncated at its extensions"};
  const uint8_t extensions = m[at++];
  if ((extensions & ~(kMetadataScalars | kMetadataAdditive | kMetadataRestValues | kMetadataNameHashes)) != 0) {
    return Error{"metadata holds unknown extensions (" + std::to_string(extensions) + ")"};
  }
  if ((extensions & kMetadataScalars) != 0) {
    if (Status s = read_scalars(m, at, scalar_count, read_string, meta); !s) return Error{s.error()};
  }
  if ((extensions & kMetadataAdditive) != 0) {
    if (m.size() - at < 1) return Error{"metadata is truncated at the additive base"};
    if (m[at] == 0 || m[at] > static_cast<uint8_t>(AdditiveBase::kClip)) {
      return Error{"metadata holds the unknown additive base " + std::to_string(m[at])};
    }
    meta.additive_base = static_cast<AdditiveBase>(m[at++]);
    if (Status s = read_string(meta.additive_base_name, "additive base name"); !s) return Error{s.error()};
  }
  // A stream with rest tracks must carry their values: a player that is
  // given no rest pose returns them.
  if (((extensions & kMetadataRestValues) != 0) != (rest_value_count != 0)) {
    return Error{rest_value_count != 0 ? "metadata holds no values for the stream's rest tracks"
                                       : "metadata holds rest values, but the stream has no rest tracks"};
  }
  if (rest_value_count != 0) {
    if ((m.size() - at) / 4 < rest_value_count) return Error{"metadata is truncated at the rest values"};
    meta.rest_values.resize(rest_value_count);
    std::memcpy(meta.rest_values.data(), m.data() + at, size_t{rest_value_count} * 4);
    at += uint64_t{rest_value_count} * 4;
  }
  if ((extensions & kMetadataNameHashes) != 0) {
    if (name_count != 0) return Error{"metadata holds both bone names and name hashes"};
    if ((m.size() - at) / 4 < bone_count) return Error{"metadata is truncated at the bone name hashes"};
    meta.bone_name_hashes.resize(bone_count);
    std::memcpy(meta.bone_name_hashes.data(), m.data() + at, size_t{bone_count} * 4);
    at += uint64_t{bone_count} * 4;
  }
  if (at != m.size()) return Error{"metadata has " + std::to_string(m.size() - at) + " trailing bytes"};
  return meta;
}

}  // namespace ks
