#include "keystream/codec/pack.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <zstd.h>

#include "keystream/clip/excerpt.h"
#include "keystream/clip/skeleton.h"
#include "keystream/codec/bit_writer.h"
#include "keystream/codec/jump_interval.h"
#include "keystream/codec/key_cost.h"
#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/checksum.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_key_layout.h"
#include "keystream/runtime/stream_metadata.h"

namespace ks {

namespace {

void put_u16(std::vector<uint8_t>& out, uint16_t v) {
  const size_t at = out.size();
  out.resize(at + 2);
  std::memcpy(out.data() + at, &v, 2);
}
void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}
void put_f32(std::vector<uint8_t>& out, float v) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}
void set_u32(std::vector<uint8_t>& out, uint32_t offset, uint32_t v) { std::memcpy(out.data() + offset, &v, 4); }

// Ends a key: its "negated" bit, on tracks that carry one.
void write_negation(BitWriter& writer, const FittedTrack& track, const KeyCoding& coding, const FittedKey& key) {
  if (coding.negation_bits) writer.write(is_negated(track, key) ? 1 : 0, 1);
}

void write_absolute(BitWriter& writer, const FittedTrack& track, const KeyCoding& coding, const FittedKey& key) {
  for (int c = 0; c < 4; ++c) {
    if (track.quantization.coded(c)) writer.write_signed(key.codes[c], coding.absolute_bits);
  }
  write_negation(writer, track, coding, key);
}

// Key k (k >= 1) as differences from key k-1 (key_coding.h).
void write_differences(BitWriter& writer, const FittedTrack& track, const KeyCoding& coding, size_t k) {
  const FittedKey& key = track.keys[k];
  const FittedKey& before = track.keys[k - 1];
  writer.write_rice(key.frame - before.frame - coding.frame_delta_min, coding.frame_rice);
  for (int c = 0; c < 4; ++c) {
    if (track.quantization.coded(c)) writer.write_rice(zigzag(key.codes[c] - before.codes[c]), coding.value_rice[c]);
  }
  write_negation(writer, track, coding, key);
}

// Key k of the key stream (k >= kInitialKeysPerTrack) as differences at the
// widths of its segment (stream_key_layout.h).
void write_stream_key(BitWriter& writer, const FittedTrack& track, const KeyCoding& coding,
                      const std::array<uint32_t, kKeyFields>& widths, size_t k) {
  const FittedKey& key = track.keys[k];
  const FittedKey& before = track.keys[k - 1];
  writer.write(key.frame - before.frame - coding.frame_delta_min, widths[0]);
  for (int c = 0; c < 4; ++c) {
    if (track.quantization.coded(c)) writer.write(zigzag(key.codes[c] - before.codes[c]), widths[c + 1]);
  }
  write_negation(writer, track, coding, key);
}

Status check_clip(const FittedClip& clip) {
  const std::string name = "fitted clip \"" + excerpt(clip.name) + "\": ";
  if (clip.frame_count < 2 || clip.frame_count > 65535) return Error{name + "frame count outside 2..65535"};
  if (!std::isfinite(clip.sample_rate_hz) || !(clip.sample_rate_hz > 0.f)) return Error{name + "sample rate is not positive"};
  if (clip.parents.empty() || clip.parents.size() > 65535) return Error{name + "bone count outside 1..65535"};
  if (clip.tracks.size() != clip.bone_track_count() + clip.scalars.size()) {
    return Error{name + "does not have three tracks per bone and one per scalar track"};
  }
  if (clip.scalars.size() > kMaxScalarTracks) return Error{name + "has more than 65535 scalar tracks"};
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    const FittedScalar& scalar = clip.scalars[s];
    if (scalar.components < 1 || scalar.components > kMaxScalarComponents) {
      return Error{name + "scalar track " + std::to_string(s) + " has " + std::to_string(scalar.components) +
                   " components, outside 1..4"};
    }
    if (!std::isfinite(scalar.precision) || !(scalar.precision > 0.f)) {
      return Error{name + "scalar track " + std::to_string(s) + " has an invalid precision"};
    }
  }
  for (size_t b = 0; b < clip.parents.size(); ++b) {
    if (clip.parents[b] >= static_cast<int32_t>(b) || clip.parents[b] < -1) {
      return Error{name + "bone " + std::to_string(b) + " has a parent that does not come before it"};
    }
  }
  const uint32_t last = clip.frame_count - 1;
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    // Built only for a message: a rig of 50,000 bones has 150,000 tracks.
    const auto where = [&] { return name + "track " + std::to_string(t); };
    const bool scalar = t >= clip.bone_track_count();
    if (track.kind != (scalar ? TrackKind::kScalar : static_cast<TrackKind>(t % 3))) {
      return Error{where() + " is of the wrong kind"};
    }
    // A scalar track's components past its count are 0, as the stream stores them.
    const uint32_t components = scalar ? clip.scalars[t - clip.bone_track_count()].components : 4u;
    for (uint32_t c = components; c < 4; ++c) {
      if (track.quantization.constant[c] != 0.f || track.quantization.coded(static_cast<int>(c))) {
        return Error{where() + " uses a component past its " + std::to_string(components)};
      }
    }
    const std::vector<FittedKey>& keys = track.keys;
    if (track.coding != TrackCoding::kAnimated) {
      if (!keys.empty()) {
        return Error{where() + " is constant but has " + std::to_string(keys.size()) + (keys.size() == 1 ? " key" : " keys")};
      }
      const float* v = constant_value(track);
      for (int c = 0; c < component_count(track.kind); ++c) {
        if (!std::isfinite(v[c])) return Error{where() + " has a constant that is not finite"};
      }
      if (track.kind == TrackKind::kRotation) {
        const double length = std::sqrt(double{v[0]} * v[0] + double{v[1]} * v[1] + double{v[2]} * v[2] + double{v[3]} * v[3]);
        if (!(std::fabs(length - 1.0) <= kUnitQuaternionTolerance)) {
          return Error{where() + " has a constant rotation that is not a unit quaternion"};
        }
      }
      if (track.coding == TrackCoding::kIdentity && !is_identity_value(track.kind, v)) {
        return Error{where() + " is marked identity but holds another value"};
      }
      if (track.coding == TrackCoding::kRest && (scalar || clip.additive.base != AdditiveBase::kNone)) {
        return Error{where() + " holds a rest value, which only a bone track of a clip that is not additive has"};
      }
      continue;
    }
    if (keys.size() < 2 || keys.size() > 2 * size_t{clip.frame_count}) {
      return Error{where() + " has too few or too many keys"};
    }
    if (keys[0].frame != 0) return Error{where() + " does not start at frame 0"};
    if (keys.back().frame != last) return Error{where() + " does not end at the last frame"};
    for (size_t k = 1; k < keys.size(); ++k) {
      if (keys[k].frame < keys[k - 1].frame || keys[k].frame > last) {
        return Error{where() + " key " + std::to_string(k) + " is out of order"};
      }
      if (k >= 2 && keys[k].frame == keys[k - 2].frame) {
        return Error{where() + " has three keys at frame " + std::to_string(keys[k].frame)};
      }
    }
    const TrackQuantization& q = track.quantization;
    const uint8_t expected_mask =
        track.kind == TrackKind::kRotation ? (q.rotation == RotationCoding::kFull ? 0b1111 : 0b0111) : q.coded_mask;
    const uint8_t possible_mask = component_count(track.kind) == 4 ? 0b1111 : 0b0111;
    if (q.coded_mask != expected_mask || q.coded_mask == 0 || (q.coded_mask & ~possible_mask) != 0) {
      return Error{where() + " codes the wrong components"};
    }
    if (!std::isfinite(q.step) || !(q.step > 0.f)) return Error{where() + " has an invalid step"};
    for (const FittedKey& key : keys) {
      for (int c = 0; c < 4; ++c) {
        if (key.codes[c] > kMaxCodeMagnitude || key.codes[c] < -kMaxCodeMagnitude) {
          return Error{where() + " has a code out of range"};
        }
      }
    }
  }
  return {};
}

// The key stream section of a zstd stream: the u32 size of one zstd frame
// of the whole key stream (which declares its size), then the frame.
Result<std::vector<uint8_t>> compress_key_stream(std::span<const uint8_t> plain, int level) {
  const std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context) return Error{"cannot create a zstd context"};
  std::vector<uint8_t> out(4 + ZSTD_compressBound(plain.size()));
  const size_t size =
      ZSTD_compressCCtx(context.get(), out.data() + 4, out.size() - 4, plain.data(), plain.size(), level);
  if (ZSTD_isError(size)) return Error{std::string("zstd: ") + ZSTD_getErrorName(size)};
  if (plain.size() > max_zstd_block_bytes(size)) {
    return Error{"zstd compresses the key stream from " + std::to_string(plain.size()) + " to " + std::to_string(size) +
                 " bytes, more than a reader accepts (" + std::to_string(kMaxZstdExpansion) + "x plus " +
                 std::to_string(kZstdExpansionSlackBytes) + " bytes): such keys are degenerate; write the stream " +
                 "without zstd"};
  }
  set_u32(out, 0, static_cast<uint32_t>(size));
  out.resize(4 + size);
  return out;
}

void put_string(std::vector<uint8_t>& out, const std::string& text) {
  put_u16(out, static_cast<uint16_t>(text.size()));
  out.insert(out.end(), text.begin(), text.end());
}

// The scalar tracks' part of the metadata.
Status put_scalar_metadata(std::vector<uint8_t>& out, const FittedClip& clip) {
  put_u32(out, static_cast<uint32_t>(clip.scalars.size()));
  put_f32(out, clip.settings.scalar_precision);
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    const FittedScalar& scalar = clip.scalars[s];
    for (const std::string* text : {&scalar.name, &scalar.node}) {
      if (text->size() > kMaxStringBytes || text->find('\0') != std::string::npos) {
        return Error{"scalar track " + std::to_string(s) + " has a name longer than " +
                     std::to_string(kMaxStringBytes) + " bytes or holding a NUL byte"};
      }
    }
    put_string(out, scalar.name);
    put_f32(out, scalar.precision);
    out.push_back(static_cast<uint8_t>(scalar.target));
    put_string(out, scalar.node);
    put_u32(out, scalar.target_index);
  }
  return {};
}

// Metadata (stream_format.h): names and the tolerance the fit promised.
Status put_metadata(std::vector<uint8_t>& out, const FittedClip& clip, const PackSettings& settings) {
  if (!clip.bone_names.empty() && clip.bone_names.size() != clip.parents.size()) {
    return Error{"has " + std::to_string(clip.bone_names.size()) + " bone names for " +
                 std::to_string(clip.parents.size()) + " bones"};
  }
  auto check = [](const std::string& text, const std::string& what) -> Status {
    if (text.size() > kMaxStringBytes) return Error{what + " is longer than " + std::to_string(kMaxStringBytes) + " bytes"};
    if (text.find('\0') != std::string::npos) return Error{what + " holds a NUL byte"};
    return {};
  };
  if (Status s = check(clip.name, "the clip name"); !s) return s;
  if (Status s = check(settings.source_name, "the source name"); !s) return s;
  for (size_t b = 0; b < clip.bone_names.size(); ++b) {
    const std::string& bone_name = clip.bone_names[b];
    // The description only for a message: a rig may have 65,535 bones.
    if (bone_name.size() <= kMaxStringBytes && bone_name.find('\0') == std::string::npos) continue;
    if (Status s = check(bone_name, "the name of bone " + std::to_string(b)); !s) return s;
  }
  const FitSettings& fit = clip.settings;
  struct Override {
    uint16_t bone;
    float tolerance_m, shell_distance_m;
  };
  std::vector<Override> overrides;
  const std::unordered_map<std::string_view, int32_t> bone_index = bone_index_by_name(clip.bone_names);
  for (const BoneTolerance& o : fit.bone_tolerances) {
    const auto at = bone_index.find(o.bone);
    if (at == bone_index.end()) {
      return Error{"has a tolerance for \"" + excerpt(o.bone) + "\", which is not one of its bones"};
    }
    overrides.push_back({static_cast<uint16_t>(at->second), o.tolerance_m, o.shell_distance_m});
  }
  const bool full_names = settings.names == NameStorage::kFull;
  const bool name_hashes = settings.names == NameStorage::kHash;
  if (name_hashes && clip.bone_names.size() != clip.parents.size()) return Error{"has no bone names to hash"};
  if (name_hashes) {
    // Two names of one hash would bind two bones to one: refused.
    std::unordered_map<uint32_t, size_t> bone_of_hash;
    for (size_t b = 0; b < clip.bone_names.size(); ++b) {
      const auto [at, added] = bone_of_hash.emplace(name_hash(clip.bone_names[b]), b);
      if (!added && clip.bone_names[at->second] != clip.bone_names[b]) {
        return Error{"bones \"" + excerpt(clip.bone_names[at->second]) + "\" and \"" + excerpt(clip.bone_names[b]) +
                     "\" have the same name hash; store full names"};
      }
    }
  }
  put_u32(out, full_names ? static_cast<uint32_t>(clip.bone_names.size()) : 0u);
  out.push_back(fit.error_mode == ErrorMode::kLocal ? 1 : 0);
  put_f32(out, fit.tolerance_m);
  put_f32(out, fit.shell_distance_m);
  put_f32(out, fit.translation_error_m);
  put_f32(out, fit.rotation_error_deg);
  put_f32(out, fit.scale_error);
  put_u32(out, static_cast<uint32_t>(overrides.size()));
  put_string(out, full_names ? clip.name : std::string());
  put_string(out, full_names ? settings.source_name : std::string());
  if (full_names) {
    for (const std::string& name : clip.bone_names) put_string(out, name);
  }
  for (const Override& o : overrides) {
    put_u16(out, o.bone);
    put_f32(out, o.tolerance_m);
    put_f32(out, o.shell_distance_m);
  }
  const bool additive = clip.additive.base != AdditiveBase::kNone;
  const bool rest_tracks = std::any_of(clip.tracks.begin(), clip.tracks.end(),
                                       [](const FittedTrack& t) { return t.coding == TrackCoding::kRest; });
  out.push_back(static_cast<uint8_t>((clip.scalars.empty() ? 0 : kMetadataScalars) |
                                     (additive ? kMetadataAdditive : 0) | (rest_tracks ? kMetadataRestValues : 0) |
                                     (name_hashes ? kMetadataNameHashes : 0)));
  if (!clip.scalars.empty()) {
    if (Status s = put_scalar_metadata(out, clip); !s) return s;
  }
  if (additive) {
    if (Status s = check(clip.additive.base_name, "the additive base's name"); !s) return s;
    out.push_back(static_cast<uint8_t>(clip.additive.base));
    put_string(out, clip.additive.base_name);
  }
  for (const FittedTrack& track : clip.tracks) {
    if (track.coding != TrackCoding::kRest) continue;
    for (int c = 0; c < component_count(track.kind); ++c) put_f32(out, constant_value(track)[c]);
  }
  if (name_hashes) {
    for (const std::string& name : clip.bone_names) put_u32(out, name_hash(name));
  }
  return {};
}

// Every track's record (stream_format.h), the scalar tracks' count before
// theirs; "scalar tracks follow" is one bit after the bones' records.
void put_track_records(BitWriter& tables, const FittedClip& clip, const std::vector<KeyCoding>& codings) {
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    const bool scalar = t >= clip.bone_track_count();
    if (t == clip.bone_track_count()) {
      tables.write(1, 1);
      tables.write(static_cast<uint32_t>(clip.scalars.size() - 1), kScalarCountBits);
    }
    const int components =
        scalar ? static_cast<int>(clip.scalars[t - clip.bone_track_count()].components) : component_count(track.kind);
    if (scalar) tables.write(static_cast<uint32_t>(components - 1), 2);
    tables.write(static_cast<uint32_t>(track.coding), 2);
    if (track.coding == TrackCoding::kIdentity || track.coding == TrackCoding::kRest) continue;
    if (track.coding == TrackCoding::kConstant) {
      for (int c = 0; c < components; ++c) tables.write_f32(constant_value(track)[c]);
      continue;
    }
    const TrackQuantization& q = track.quantization;
    tables.write(track.keys.size(), kKeyCountBits);
    tables.write(static_cast<uint32_t>(track.interpolation), kInterpolationBits);
    if (track.kind == TrackKind::kRotation) {
      tables.write(static_cast<uint32_t>(q.rotation), 1);
      if (q.rotation == RotationCoding::kRelative) tables.write(q.reference_code, kReferenceCodeBits);
      tables.write(codings[t].negation_bits ? 1 : 0, 1);
    } else {
      tables.write(q.coded_mask, static_cast<uint32_t>(components));
      for (int c = 0; c < components; ++c) {
        if (!q.coded(c)) tables.write_f32(q.constant[c]);
      }
    }
    tables.write_f32(q.step);
    const KeyCoding& coding = codings[t];
    tables.write(coding.absolute_bits, kAbsoluteWidthBits);
    for (int c = 0; c < 4; ++c) {
      if (q.coded(c)) tables.write(coding.value_rice[c], kRiceParameterBits);
    }
    tables.write(coding.frame_rice, kRiceParameterBits);
    tables.write(coding.frame_delta_min, 1);
  }
}

// The tables section: parents, then a record per track (stream_format.h).
void put_tables(BitWriter& tables, const FittedClip& clip, const std::vector<KeyCoding>& codings) {
  const uint32_t parent_bits = bits_for(clip.parents.size());
  for (int32_t parent : clip.parents) tables.write(static_cast<uint32_t>(parent + 1), parent_bits);
  put_track_records(tables, clip, codings);
  if (clip.scalars.empty()) tables.write(0, 1);
}

}  // namespace

const char* to_string(NameStorage names) {
  switch (names) {
    case NameStorage::kFull: return "full";
    case NameStorage::kHash: return "hash";
    case NameStorage::kNone: return "none";
  }
  return "unknown";
}

Status PackSettings::validate() const {
  if (names != NameStorage::kFull && names != NameStorage::kHash && names != NameStorage::kNone) {
    return Error{"names are neither full, hash nor none"};
  }
  if (!std::isfinite(jump_interval_s) || jump_interval_s < 0.f) {
    return Error{"jump interval must be 0 (none) or a positive number of seconds"};
  }
  if (zstd_level < 1 || zstd_level > ZSTD_maxCLevel()) {
    return Error{"zstd level " + std::to_string(zstd_level) + " is outside 1.." + std::to_string(ZSTD_maxCLevel())};
  }
  return {};
}

uint32_t jump_interval_frames(float jump_interval_s, float sample_rate_hz) {
  if (!(jump_interval_s > 0.f)) return 0;
  const double frames = std::nearbyint(double{jump_interval_s} * sample_rate_hz);
  return static_cast<uint32_t>(std::clamp(frames, 1.0, 65535.0));
}

Result<std::vector<uint8_t>> pack(const FittedClip& clip, const PackSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{"pack settings: " + s.error()};
  if (Status s = check_clip(clip); !s) return Error{s.error()};
  const std::string name = "fitted clip \"" + excerpt(clip.name) + "\": ";
  const uint32_t track_count = static_cast<uint32_t>(clip.tracks.size());
  const uint32_t last = clip.frame_count - 1;
  std::vector<KeyCoding> codings(track_count);
  uint32_t max_key_count = 0;
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    codings[t] = choose_key_coding(track);
    max_key_count = std::max<uint32_t>(max_key_count, static_cast<uint32_t>(track.keys.size()));
  }

  std::vector<uint8_t> out(kHeaderSize, 0);
  BitWriter tables;
  put_tables(tables, clip, codings);
  out.insert(out.end(), tables.bytes().begin(), tables.bytes().end());

  // Key widths: every segment of every track's stream keys.
  const uint32_t key_widths_offset = static_cast<uint32_t>(out.size());
  std::vector<std::vector<std::array<uint32_t, kKeyFields>>> widths(track_count);
  BitWriter key_widths;
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const uint32_t segments = segment_count(static_cast<uint32_t>(track.keys.size()));
    for (uint32_t segment = 0; segment < segments; ++segment) {
      const std::array<uint32_t, kKeyFields>& w = widths[t].emplace_back(segment_widths(track, codings[t], segment));
      key_widths.write(w[0], kSegmentWidthBits);
      for (int c = 0; c < 4; ++c) {
        if (track.quantization.coded(c)) key_widths.write(w[c + 1], kSegmentWidthBits);
      }
    }
  }
  out.insert(out.end(), key_widths.bytes().begin(), key_widths.bytes().end());

  // Initial keys: those needed at frame 0.
  const uint32_t initial_keys_offset = static_cast<uint32_t>(out.size());
  BitWriter initial;
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    write_absolute(initial, track, codings[t], track.keys[0]);
    const size_t count = std::min<size_t>(track.keys.size(), kInitialKeysPerTrack);
    for (size_t k = 1; k < count; ++k) write_differences(initial, track, codings[t], k);
  }
  out.insert(out.end(), initial.bytes().begin(), initial.bytes().end());

  // Key stream: each streamed track's keys 3.. end to end (its run), the
  // runs in track order.
  const uint32_t key_stream_offset = static_cast<uint32_t>(out.size());
  BitWriter stream;
  uint32_t stream_key_count = 0;
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (!is_streamed(track)) continue;
    for (uint32_t k = kInitialKeysPerTrack; k < track.keys.size(); ++k) {
      write_stream_key(stream, track, codings[t], widths[t][segment_of_key(k)], k);
      ++stream_key_count;
    }
  }
  if (stream.size_bits() > 0xFFFFFFFFull) return Error{name + "key stream exceeds 2^32 bits"};

  // Jump frames: the windows after every key needed at or before the frame.
  const uint32_t interval =
      settings.auto_jump_interval
          ? choose_jump_interval(clip, codings, out.size() + stream.bytes().size()).interval_frames
          : jump_interval_frames(settings.jump_interval_s, clip.sample_rate_hz);
  const uint32_t jump_count = interval == 0 ? 0 : last / interval;
  const uint32_t key_index_bits = bits_for(max_key_count);
  std::vector<uint32_t> keys_read(track_count);
  for (uint32_t t = 0; t < track_count; ++t) {
    keys_read[t] = static_cast<uint32_t>(std::min<size_t>(clip.tracks[t].keys.size(), kInitialKeysPerTrack));
  }
  std::vector<uint8_t> jump_index;
  BitWriter states;
  // Each streamed track's width of saved frames (the jump frame minus the
  // window's oldest key's frame).
  std::vector<uint32_t> difference_bits(track_count, 0);
  for (uint32_t t = 0; t < track_count && jump_count > 0; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (!is_streamed(track)) continue;
    difference_bits[t] = jump_frame_difference_bits(track, interval, jump_count);
    states.write(difference_bits[t], kJumpFrameDifferenceWidthBits);
  }
  uint32_t stream_keys_read = 0;
  for (uint32_t j = 0; j < jump_count; ++j) {
    const uint32_t frame = (j + 1) * interval;
    // Key k of a track is needed at the frame of its key k - 2.
    for (uint32_t t = 0; t < track_count; ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.coding != TrackCoding::kAnimated) continue;
      while (keys_read[t] < track.keys.size() && track.keys[keys_read[t] - 2].frame <= frame) {
        ++keys_read[t];
        ++stream_keys_read;
      }
    }
    put_u32(jump_index, stream_keys_read);
    // Every state the same layout (stream_format.h): a track that saves
    // oldest keys writes zeros in their place until it has one.
    for (uint32_t t = 0; t < track_count; ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (!is_streamed(track)) continue;
      const uint32_t read = keys_read[t];
      states.write(read, key_index_bits);
      if (!saves_oldest_key(static_cast<uint32_t>(track.keys.size()))) continue;
      if (read < kRestoreFromRunKeys) {
        uint32_t zeros = saved_window_bits(track, codings[t], key_index_bits, difference_bits[t]) - key_index_bits;
        for (; zeros > 32; zeros -= 32) states.write(0, 32);
        states.write(0, zeros);
        continue;
      }
      const FittedKey& oldest = track.keys[read - kWindowSize];
      states.write(frame - oldest.frame, difference_bits[t]);
      write_absolute(states, track, codings[t], oldest);
    }
  }
  if (states.size_bits() > 0xFFFFFFFFull) return Error{name + "jump states exceed 2^32 bits"};
  if (settings.zstd) {
    Result<std::vector<uint8_t>> frame = compress_key_stream(stream.bytes(), settings.zstd_level);
    if (!frame) return Error{name + frame.error()};
    out.insert(out.end(), frame.value().begin(), frame.value().end());
  } else {
    out.insert(out.end(), stream.bytes().begin(), stream.bytes().end());
  }
  const uint32_t jump_index_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), jump_index.begin(), jump_index.end());
  const uint32_t jump_states_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), states.bytes().begin(), states.bytes().end());
  const uint32_t metadata_offset = static_cast<uint32_t>(out.size());
  if (Status s = put_metadata(out, clip, settings); !s) return Error{name + s.error()};
  if (out.size() > 0xFFFFFFFFull) return Error{name + "stream exceeds 4 GiB"};

  using namespace header_offset;
  set_u32(out, kMagic, kStreamMagic);
  const uint16_t version = kStreamVersion;
  std::memcpy(out.data() + kVersion, &version, 2);
  const uint16_t flags = static_cast<uint16_t>((settings.zstd ? kFlagZstdKeyStream : 0) |
                                              (clip.additive.base != AdditiveBase::kNone ? kFlagAdditive : 0));
  std::memcpy(out.data() + kFlags, &flags, 2);
  std::memcpy(out.data() + kSampleRate, &clip.sample_rate_hz, 4);
  set_u32(out, kFrameCount, clip.frame_count);
  set_u32(out, kBoneCount, static_cast<uint32_t>(clip.parents.size()));
  set_u32(out, kJumpIntervalFrames, interval);
  set_u32(out, kKeyWidthsOffset, key_widths_offset);
  set_u32(out, kInitialKeysOffset, initial_keys_offset);
  set_u32(out, kKeyStreamOffset, key_stream_offset);
  set_u32(out, kJumpIndexOffset, jump_index_offset);
  set_u32(out, kJumpStatesOffset, jump_states_offset);
  set_u32(out, kMetadataOffset, metadata_offset);
  set_u32(out, kTotalSize, static_cast<uint32_t>(out.size()));
  set_u32(out, kKeyStreamBits, static_cast<uint32_t>(stream.size_bits()));
  set_u32(out, kStreamKeyCount, stream_key_count);
  set_u32(out, kChecksum, stream_checksum(out));
  return out;
}

}  // namespace ks
