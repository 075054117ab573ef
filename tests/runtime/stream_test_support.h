#pragma once
// Helpers shared by the stream tests (pack, stream view, player, golden
// stream): packing fitted clips, patching a stream's bytes and fixing its
// checksum, decoding the key stream, random fitted clips with the edge cases
// the fitter rarely produces, and bit-exact pose comparison.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/bit_writer.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/codec/quantize.h"
#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/checksum.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"
#include "keystream/runtime/transform.h"
#include "tests/codec/random_clip.h"

namespace ks::test {

/// The stream of `clip` with jump frames every `jump_interval_s` (and zstd
/// key stream blocks when `zstd`); an empty vector (and a test failure) when
/// pack refuses it.
inline std::vector<uint8_t> pack_or_fail(const FittedClip& clip, float jump_interval_s, bool zstd = false) {
  PackSettings settings;
  settings.jump_interval_s = jump_interval_s;
  settings.zstd = zstd;
  settings.zstd_level = 3;  // fast: the tests pack thousands of streams
  Result<std::vector<uint8_t>> packed = pack(clip, settings);
  EXPECT_TRUE(packed.ok()) << packed.error();
  return packed.ok() ? std::move(packed.value()) : std::vector<uint8_t>{};
}

/// `clip` fitted with default settings; an empty clip (and a failure) on refusal.
inline FittedClip fit_or_fail(const Skeleton& skeleton, const RawClip& clip, unsigned threads = 1) {
  Result<FittedClip> fitted = fit_clip(skeleton, clip, FitSettings{}, threads);
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  return fitted.ok() ? std::move(fitted.value()) : FittedClip{};
}

inline uint32_t get_u32(std::span<const uint8_t> bytes, uint32_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}
inline void set_u32(std::vector<uint8_t>& bytes, uint32_t offset, uint32_t v) {
  std::memcpy(bytes.data() + offset, &v, 4);
}
inline void set_u16(std::vector<uint8_t>& bytes, uint32_t offset, uint16_t v) {
  std::memcpy(bytes.data() + offset, &v, 2);
}
inline void set_f32(std::vector<uint8_t>& bytes, uint32_t offset, float v) {
  std::memcpy(bytes.data() + offset, &v, 4);
}

/// Recomputes the header checksum the way StreamView checks it (checksum.h).
inline void fix_checksum(std::vector<uint8_t>& bytes) {
  if (bytes.size() < kHeaderSize) return;
  set_u32(bytes, header_offset::kChecksum, stream_checksum(bytes));
}

/// Sets the header's total size to the vector's size and fixes the checksum.
inline void fix_size_and_checksum(std::vector<uint8_t>& bytes) {
  if (bytes.size() < kHeaderSize) return;
  set_u32(bytes, header_offset::kTotalSize, static_cast<uint32_t>(bytes.size()));
  fix_checksum(bytes);
}

/// `original` with the `erase` bytes at `at` replaced by `insert`: the header's
/// section offsets at or past the replaced bytes move with them (inserted
/// bytes join the section they follow), and the size and checksum are fixed.
inline std::vector<uint8_t> splice(const std::vector<uint8_t>& original, uint32_t at, uint32_t erase,
                                   std::span<const uint8_t> insert) {
  std::vector<uint8_t> bytes = original;
  bytes.erase(bytes.begin() + at, bytes.begin() + at + erase);
  bytes.insert(bytes.begin() + at, insert.begin(), insert.end());
  const int64_t delta = static_cast<int64_t>(insert.size()) - static_cast<int64_t>(erase);
  namespace ho = header_offset;
  for (const uint32_t field : {ho::kKeyWidthsOffset, ho::kInitialKeysOffset, ho::kKeyStreamOffset,
                               ho::kJumpIndexOffset, ho::kJumpStatesOffset, ho::kMetadataOffset}) {
    const uint32_t offset = get_u32(bytes, field);
    if (offset >= uint64_t{at} + erase) set_u32(bytes, field, static_cast<uint32_t>(offset + delta));
  }
  fix_size_and_checksum(bytes);
  return bytes;
}

/// Overwrites `bits` bits at `bit_offset` (LSB first, as BitWriter writes them).
inline void write_bits(std::vector<uint8_t>& bytes, uint64_t bit_offset, uint64_t value, uint32_t bits) {
  for (uint32_t i = 0; i < bits; ++i) {
    const uint64_t at = bit_offset + i;
    const uint8_t mask = static_cast<uint8_t>(1u << (at & 7u));
    if ((value >> i) & 1u) {
      bytes[at >> 3] |= mask;
    } else {
      bytes[at >> 3] &= static_cast<uint8_t>(~mask);
    }
  }
}

// --- an independent reading of the version 11 layout (stream_format.h) ------
// Written from the format's description, not from StreamView, so the pack
// tests check the bytes against the documentation and the stream view tests
// can find (and change) any field.

/// One track record of the tables: its values and the bit offset of each
/// field from the start of the stream (0 when the track has no such field).
struct TrackRecord {
  TrackKind kind = TrackKind::kTranslation;
  uint32_t components = 0;  // scalar tracks: 1..4 (bone tracks: 0, their kind says)
  TrackCoding coding = TrackCoding::kIdentity;
  uint32_t key_count = 0;
  Interpolation interpolation = Interpolation::kHermite;  // Hermite in version 9, which has no field
  RotationCoding rotation = RotationCoding::kRelative;
  uint8_t coded_mask = 0;
  float step = 0.f;
  KeyCoding key_coding;
  uint64_t components_bit = 0, coding_bit = 0, key_count_bit = 0, interpolation_bit = 0, rotation_bit = 0,
           reference_bit = 0, mask_bit = 0, step_bit = 0, absolute_bits_bit = 0, value_rice_bit[4] = {0, 0, 0, 0},
           frame_rice_bit = 0, frame_delta_min_bit = 0, constant_bit[4] = {0, 0, 0, 0}, negation_bits_bit = 0;
  bool coded(int c) const { return ((coded_mask >> c) & 1u) != 0; }
};

struct TableLayout {
  uint16_t version = 0;
  uint32_t bone_count = 0;
  uint32_t parent_bits = 0;
  std::vector<TrackRecord> tracks;  // the bones' (3 per bone), then the scalar tracks'
  uint32_t scalar_count = 0;
  uint64_t scalar_flag_bit = 0;  // the "scalar tracks follow" bit
  uint64_t end_bit = 0;  // where the records end, bits from the start of the stream
  uint64_t parent_bit(uint32_t bone) const { return uint64_t{kHeaderSize} * 8 + uint64_t{bone} * parent_bits; }
};

/// The tables of a well-formed version 9, 10 or 11 stream (its scalar
/// tracks' records after the bones').
inline TableLayout table_layout(std::span<const uint8_t> bytes) {
  TableLayout layout;
  std::memcpy(&layout.version, bytes.data() + header_offset::kVersion, 2);
  layout.bone_count = get_u32(bytes, header_offset::kBoneCount);
  layout.parent_bits = bits_for(layout.bone_count);
  BitReader reader(bytes, uint64_t{kHeaderSize} * 8 + uint64_t{layout.bone_count} * layout.parent_bits);
  const auto read_record = [&](TrackRecord& r) {
    const int components = r.kind == TrackKind::kScalar ? static_cast<int>(r.components) : component_count(r.kind);
    r.coding_bit = reader.position();
    r.coding = static_cast<TrackCoding>(reader.read(2));
    if (r.coding == TrackCoding::kConstant) {
      for (int c = 0; c < components; ++c) {
        r.constant_bit[c] = reader.position();
        reader.read(32);
      }
    } else if (r.coding == TrackCoding::kAnimated) {
      r.key_count_bit = reader.position();
      r.key_count = reader.read(kKeyCountBits);
      if (layout.version >= kInterpolationStreamVersion) {
        r.interpolation_bit = reader.position();
        r.interpolation = static_cast<Interpolation>(reader.read(kInterpolationBits));
      }
      if (r.kind == TrackKind::kRotation) {
        r.rotation_bit = reader.position();
        r.rotation = static_cast<RotationCoding>(reader.read(1));
        r.coded_mask = r.rotation == RotationCoding::kFull ? 0b1111 : 0b0111;
        if (r.rotation == RotationCoding::kRelative) {
          r.reference_bit = reader.position();
          reader.read(kReferenceCodeBits);
        }
        r.negation_bits_bit = reader.position();
        r.key_coding.negation_bits = reader.read(1) != 0;
      } else {
        r.mask_bit = reader.position();
        r.coded_mask = static_cast<uint8_t>(reader.read(static_cast<uint32_t>(components)));
        for (int c = 0; c < components; ++c) {
          if (r.coded(c)) continue;
          r.constant_bit[c] = reader.position();
          reader.read(32);
        }
      }
      r.step_bit = reader.position();
      r.step = std::bit_cast<float>(reader.read(32));
      r.absolute_bits_bit = reader.position();
      r.key_coding.absolute_bits = static_cast<uint8_t>(reader.read(kAbsoluteWidthBits));
      for (int c = 0; c < 4; ++c) {
        if (!r.coded(c)) continue;
        r.value_rice_bit[c] = reader.position();
        r.key_coding.value_rice[c] = static_cast<uint8_t>(reader.read(kRiceParameterBits));
      }
      r.frame_rice_bit = reader.position();
      r.key_coding.frame_rice = static_cast<uint8_t>(reader.read(kRiceParameterBits));
      r.frame_delta_min_bit = reader.position();
      r.key_coding.frame_delta_min = static_cast<uint8_t>(reader.read(1));
    }
    // Identity and rest (version 11): nothing more.
  };
  for (uint32_t t = 0; t < 3 * layout.bone_count; ++t) {
    TrackRecord r;
    r.kind = static_cast<TrackKind>(t % 3);
    read_record(r);
    layout.tracks.push_back(r);
  }
  layout.scalar_flag_bit = reader.position();
  if (reader.read(1) != 0) {
    layout.scalar_count = reader.read(kScalarCountBits) + 1;
    for (uint32_t s = 0; s < layout.scalar_count; ++s) {
      TrackRecord r;
      r.kind = TrackKind::kScalar;
      r.components_bit = reader.position();
      r.components = reader.read(2) + 1;
      read_record(r);
      layout.tracks.push_back(r);
    }
  }
  layout.end_bit = reader.position();
  return layout;
}

/// `bytes` (a version 10 or 11 stream without rest tracks, every track
/// Hermite) as version 9 wrote it: the version field 9 and no interpolation
/// fields in the tables. Header offsets, size and checksum follow. (A
/// version 11 stream without rest tracks has version 10's tables.)
inline std::vector<uint8_t> as_version_nine(const std::vector<uint8_t>& bytes) {
  const TableLayout layout = table_layout(bytes);
  EXPECT_GE(layout.version, kInterpolationStreamVersion);
  EXPECT_LE(layout.version, kRestTrackStreamVersion);
  std::vector<uint64_t> skipped;
  for (const TrackRecord& r : layout.tracks) {
    EXPECT_NE(r.coding, TrackCoding::kRest) << "version 9 has no rest tracks";
    EXPECT_EQ(r.interpolation, Interpolation::kHermite) << "version 9 has no other interpolation";
    if (r.interpolation_bit != 0) skipped.push_back(r.interpolation_bit);
  }
  // The tables bit by bit (they are small), without the fields.
  BitWriter tables;
  BitReader reader(bytes, uint64_t{kHeaderSize} * 8);
  size_t next = 0;
  while (reader.position() < layout.end_bit) {
    if (next < skipped.size() && reader.position() == skipped[next]) {
      reader.read(kInterpolationBits);
      ++next;
      continue;
    }
    tables.write(reader.read(1), 1);
  }
  const uint32_t tables_end = get_u32(bytes, header_offset::kKeyWidthsOffset);
  std::vector<uint8_t> out = splice(bytes, kHeaderSize, tables_end - kHeaderSize, tables.bytes());
  set_u16(out, header_offset::kVersion, 9);
  fix_checksum(out);
  return out;
}

/// `bytes` (a version 11 stream without rest tracks) as version 10 wrote
/// it: the same bytes but for the version field (and the checksum).
inline std::vector<uint8_t> as_version_ten(const std::vector<uint8_t>& bytes) {
  const TableLayout layout = table_layout(bytes);
  EXPECT_EQ(layout.version, kRestTrackStreamVersion);
  for (const TrackRecord& r : layout.tracks) EXPECT_NE(r.coding, TrackCoding::kRest) << "version 10 has no rest tracks";
  std::vector<uint8_t> out = bytes;
  set_u16(out, header_offset::kVersion, kInterpolationStreamVersion);
  fix_checksum(out);
  return out;
}

/// A Rice code read one bit at a time, as key_coding.h describes it.
inline uint32_t read_rice_slowly(BitReader& reader, uint32_t k) {
  uint32_t zeros = 0;
  while (zeros < kRiceEscapeZeros && reader.read(1) == 0) ++zeros;
  if (zeros == kRiceEscapeZeros) return reader.read(kRiceEscapeBits);
  return (zeros << k) | reader.read(k);
}

/// One key as the stream stores it.
struct StoredKey {
  uint32_t track = 0;
  uint32_t key = 0;  // index within its track
  uint32_t frame = 0;
  int32_t codes[4] = {0, 0, 0, 0};
  bool negated = false;     // its "negated" bit, on tracks with negation bits
  uint64_t negated_bit = 0; // where that bit is, from the start of its section (0: none)
  uint64_t bit_offset = 0;  // from the start of its section (initial keys or key stream)
  uint64_t bit_end = 0;
};

/// Every key of a plain (not zstd) stream: the initial keys per track and
/// the key stream in stream order (each streamed track's keys 3.. in turn,
/// the tracks in order).
struct StoredKeys {
  std::vector<std::vector<StoredKey>> tracks;  // per track, every key in order
  std::vector<StoredKey> stream;               // the key stream's keys in order
  uint64_t initial_bits = 0, stream_bits = 0;  // where each section's keys end
};

/// Widths of one segment of stream keys: the frame difference's, then
/// components 0..3 (0 for a component not coded).
using SegmentWidths = std::array<uint32_t, 5>;
inline constexpr uint32_t kTestKeysPerSegment = 16;  // stream_key_layout.h's kKeysPerSegment, restated

/// The key widths section: per streamed track, the widths of each segment
/// of its stream keys (keys 3..18, 19..34, ...).
inline std::vector<std::vector<SegmentWidths>> stored_key_widths(std::span<const uint8_t> bytes,
                                                                 const TableLayout& layout) {
  std::vector<std::vector<SegmentWidths>> out(layout.tracks.size());
  BitReader reader(bytes, uint64_t{get_u32(bytes, header_offset::kKeyWidthsOffset)} * 8);
  for (uint32_t t = 0; t < layout.tracks.size(); ++t) {
    const TrackRecord& r = layout.tracks[t];
    if (r.coding != TrackCoding::kAnimated) continue;
    for (uint32_t first = kInitialKeysPerTrack; first < r.key_count; first += kTestKeysPerSegment) {
      SegmentWidths w{};
      w[0] = reader.read(5);
      for (int c = 0; c < 4; ++c) w[c + 1] = r.coded(c) ? reader.read(5) : 0;
      out[t].push_back(w);
    }
  }
  return out;
}

/// Reads one key: absolute when `before` is null; else its differences,
/// Rice coded when `widths` is null (keys 1 and 2, jump states), or at
/// `widths` (the key stream).
inline void read_stored_key(BitReader& reader, const TrackRecord& r, const StoredKey* before, StoredKey& key,
                            const SegmentWidths* widths = nullptr) {
  key.bit_offset = reader.position();
  if (before == nullptr) {
    for (int c = 0; c < 4; ++c) {
      if (!r.coded(c)) continue;
      const uint32_t bits = r.key_coding.absolute_bits;
      const uint32_t field = reader.read(bits);
      key.codes[c] = static_cast<int32_t>(field << (32 - bits)) >> (32 - bits);
    }
  } else {
    const uint32_t frame_field =
        widths != nullptr ? reader.read((*widths)[0]) : read_rice_slowly(reader, r.key_coding.frame_rice);
    key.frame = before->frame + frame_field + r.key_coding.frame_delta_min;
    for (int c = 0; c < 4; ++c) {
      if (!r.coded(c)) continue;
      const uint32_t u = widths != nullptr ? reader.read((*widths)[c + 1]) : read_rice_slowly(reader, r.key_coding.value_rice[c]);
      const int32_t difference = static_cast<int32_t>(u >> 1) ^ -static_cast<int32_t>(u & 1u);
      key.codes[c] = static_cast<int32_t>(static_cast<uint32_t>(before->codes[c]) + static_cast<uint32_t>(difference));
    }
  }
  if (r.key_coding.negation_bits) {
    key.negated_bit = reader.position();
    key.negated = reader.read(1) != 0;
  }
  key.bit_end = reader.position();
}

inline StoredKeys stored_keys(std::span<const uint8_t> bytes, const TableLayout& layout) {
  StoredKeys out;
  out.tracks.resize(layout.tracks.size());
  const uint32_t initial_at = get_u32(bytes, header_offset::kInitialKeysOffset);
  const uint32_t stream_at = get_u32(bytes, header_offset::kKeyStreamOffset);
  const uint32_t stream_end = get_u32(bytes, header_offset::kJumpIndexOffset);
  BitReader initial(bytes.subspan(initial_at, stream_at - initial_at));
  for (uint32_t t = 0; t < layout.tracks.size(); ++t) {
    const TrackRecord& r = layout.tracks[t];
    if (r.coding != TrackCoding::kAnimated) continue;
    for (uint32_t k = 0; k < std::min(r.key_count, kInitialKeysPerTrack); ++k) {
      StoredKey key;
      key.track = t;
      key.key = k;
      read_stored_key(initial, r, k == 0 ? nullptr : &out.tracks[t].back(), key);
      out.tracks[t].push_back(key);
    }
  }
  out.initial_bits = initial.position();
  const std::vector<std::vector<SegmentWidths>> widths = stored_key_widths(bytes, layout);
  BitReader stream(bytes.subspan(stream_at, stream_end - stream_at));
  for (uint32_t t = 0; t < layout.tracks.size(); ++t) {
    if (layout.tracks[t].coding != TrackCoding::kAnimated) continue;
    while (out.tracks[t].size() < layout.tracks[t].key_count) {
      StoredKey key;
      key.track = t;
      key.key = static_cast<uint32_t>(out.tracks[t].size());
      read_stored_key(stream, layout.tracks[t], &out.tracks[t].back(), key,
                      &widths[t][(key.key - kInitialKeysPerTrack) / kTestKeysPerSegment]);
      out.tracks[t].push_back(key);
      out.stream.push_back(key);
    }
  }
  out.stream_bits = stream.position();
  return out;
}

// The fields of `key` after `before`: the frame difference past the minimum,
// then each component's zigzagged difference (0 for a component not coded).
// Wrapping, as the decoder adds: a test may store codes far out of range.
inline SegmentWidths difference_fields(const TrackRecord& r, const StoredKey& before, const StoredKey& key) {
  SegmentWidths fields{};
  fields[0] = key.frame - before.frame - r.key_coding.frame_delta_min;
  for (int c = 0; c < 4; ++c) {
    const auto difference =
        static_cast<int32_t>(static_cast<uint32_t>(key.codes[c]) - static_cast<uint32_t>(before.codes[c]));
    if (r.coded(c)) fields[c + 1] = zigzag(difference);
  }
  return fields;
}

/// Appends `key` (absolute when `before` is null) as the stream writes it:
/// differences Rice coded when `widths` is null, else at `widths` (each
/// field cut to its width: a test may ask for more than a width holds).
inline void write_stored_key(BitWriter& writer, const TrackRecord& r, const StoredKey* before, const StoredKey& key,
                             const SegmentWidths* widths = nullptr) {
  if (before == nullptr) {
    for (int c = 0; c < 4; ++c) {
      if (r.coded(c)) writer.write_signed(key.codes[c], r.key_coding.absolute_bits);
    }
    if (r.key_coding.negation_bits) writer.write(key.negated ? 1 : 0, 1);
    return;
  }
  const SegmentWidths fields = difference_fields(r, *before, key);
  if (widths != nullptr) {
    for (int f = 0; f < 5; ++f) {
      if (f == 0 || r.coded(f - 1)) writer.write(fields[f] & ((uint64_t{1} << (*widths)[f]) - 1u), (*widths)[f]);
    }
  } else {
    writer.write_rice(fields[0], r.key_coding.frame_rice);
    for (int c = 0; c < 4; ++c) {
      if (r.coded(c)) writer.write_rice(fields[c + 1], r.key_coding.value_rice[c]);
    }
  }
  if (r.key_coding.negation_bits) writer.write(key.negated ? 1 : 0, 1);
}

/// The widths the packer gives `track`'s keys: per segment, the bits its
/// largest field needs (at most 31, what 5 bits hold).
inline std::vector<SegmentWidths> widths_for(const TrackRecord& r, const std::vector<StoredKey>& track) {
  std::vector<SegmentWidths> out;
  for (size_t first = kInitialKeysPerTrack; first < track.size(); first += kTestKeysPerSegment) {
    SegmentWidths w{};
    for (size_t k = first; k < std::min(track.size(), first + kTestKeysPerSegment); ++k) {
      const SegmentWidths fields = difference_fields(r, track[k - 1], track[k]);
      for (int f = 0; f < 5; ++f) w[f] = std::max<uint32_t>(w[f], std::min<uint32_t>(31, std::bit_width(fields[f])));
    }
    out.push_back(w);
  }
  return out;
}

/// `bytes` (a plain stream without jump frames) with its key sections
/// rewritten from `keys`: every track's keys in `keys.tracks`, the key stream
/// as those keys' runs (keys 3.. of each track, in track order), the key
/// widths those keys need. Header offsets, counts, size and checksum follow.
inline std::vector<uint8_t> with_keys(const std::vector<uint8_t>& bytes, const TableLayout& layout,
                                      const StoredKeys& keys) {
  BitWriter key_widths, initial, stream;
  std::vector<std::vector<SegmentWidths>> widths(layout.tracks.size());
  for (uint32_t t = 0; t < layout.tracks.size(); ++t) {
    const TrackRecord& r = layout.tracks[t];
    const std::vector<StoredKey>& track = keys.tracks[t];
    for (size_t k = 0; k < track.size() && k < kInitialKeysPerTrack; ++k) {
      write_stored_key(initial, r, k == 0 ? nullptr : &track[k - 1], track[k]);
    }
    if (r.coding != TrackCoding::kAnimated) continue;
    widths[t] = widths_for(r, track);
    for (const SegmentWidths& w : widths[t]) {
      for (int f = 0; f < 5; ++f) {
        if (f == 0 || r.coded(f - 1)) key_widths.write(w[f], 5);
      }
    }
  }
  uint32_t stream_keys = 0;
  for (uint32_t t = 0; t < layout.tracks.size(); ++t) {
    const std::vector<StoredKey>& track = keys.tracks[t];
    for (size_t k = kInitialKeysPerTrack; k < track.size(); ++k, ++stream_keys) {
      write_stored_key(stream, layout.tracks[t], &track[k - 1], track[k],
                       &widths[t][(k - kInitialKeysPerTrack) / kTestKeysPerSegment]);
    }
  }
  namespace ho = header_offset;
  const uint32_t key_widths_at = get_u32(bytes, ho::kKeyWidthsOffset);
  const uint32_t jump_index_at = get_u32(bytes, ho::kJumpIndexOffset);
  std::vector<uint8_t> sections = key_widths.bytes();
  sections.insert(sections.end(), initial.bytes().begin(), initial.bytes().end());
  sections.insert(sections.end(), stream.bytes().begin(), stream.bytes().end());
  std::vector<uint8_t> out = splice(bytes, key_widths_at, jump_index_at - key_widths_at, sections);
  const uint32_t initial_at = key_widths_at + static_cast<uint32_t>(key_widths.bytes().size());
  set_u32(out, ho::kInitialKeysOffset, initial_at);
  set_u32(out, ho::kKeyStreamOffset, initial_at + static_cast<uint32_t>(initial.bytes().size()));
  set_u32(out, ho::kKeyStreamBits, static_cast<uint32_t>(stream.size_bits()));
  set_u32(out, ho::kStreamKeyCount, stream_keys);
  fix_size_and_checksum(out);
  return out;
}

/// Where jump frame j's saved window of streamed track t starts (its keys-read
/// count) and, once it has read kRestoreFromRunKeys keys, where its oldest
/// key's frame difference and "negated" bit (tracks with negation bits only)
/// are; bits from the start of the stream, 0 where there is none. Each
/// streamed track's width of frame differences, and where it is.
struct JumpStateLayout {
  std::vector<std::vector<uint64_t>> count_bit;  // [jump][track], 0 for tracks not saved
  std::vector<std::vector<uint64_t>> first_frame_bit;
  std::vector<std::vector<uint64_t>> negated_bit;
  std::vector<uint32_t> frame_difference_bits;       // [track], 0 for tracks not streamed
  std::vector<uint64_t> frame_difference_width_bit;  // [track], 0 for tracks not streamed
};

inline JumpStateLayout jump_state_layout(std::span<const uint8_t> bytes, const TableLayout& layout,
                                         uint32_t jump_frame_count, uint32_t key_index_bits) {
  JumpStateLayout out;
  const uint64_t base = uint64_t{get_u32(bytes, header_offset::kJumpStatesOffset)} * 8;
  BitReader reader(bytes, base);
  const auto streamed = [&](const TrackRecord& r) {
    return r.coding == TrackCoding::kAnimated && r.key_count > kInitialKeysPerTrack;
  };
  out.frame_difference_bits.assign(layout.tracks.size(), 0);
  out.frame_difference_width_bit.assign(layout.tracks.size(), 0);
  for (uint32_t t = 0; t < layout.tracks.size() && jump_frame_count > 0; ++t) {
    if (!streamed(layout.tracks[t])) continue;
    out.frame_difference_width_bit[t] = reader.position();
    out.frame_difference_bits[t] = reader.read(kJumpFrameDifferenceWidthBits);
  }
  for (uint32_t j = 0; j < jump_frame_count; ++j) {
    out.count_bit.emplace_back(layout.tracks.size(), 0);
    out.first_frame_bit.emplace_back(layout.tracks.size(), 0);
    out.negated_bit.emplace_back(layout.tracks.size(), 0);
    for (uint32_t t = 0; t < layout.tracks.size(); ++t) {
      const TrackRecord& r = layout.tracks[t];
      if (!streamed(r)) continue;
      out.count_bit[j][t] = reader.position();
      const uint32_t read = reader.read(key_index_bits);
      // Every state has the same layout: a track that saves oldest keys has
      // their fields (zeros) before it has read kRestoreFromRunKeys keys.
      if (!saves_oldest_key(r.key_count)) continue;
      StoredKey key;
      const uint64_t first_frame_bit = reader.position();
      reader.read(out.frame_difference_bits[t]);
      read_stored_key(reader, r, nullptr, key);
      if (read < kRestoreFromRunKeys) continue;
      out.first_frame_bit[j][t] = first_frame_bit;
      out.negated_bit[j][t] = key.negated_bit;
    }
  }
  return out;
}

/// Passes when `result` is a refusal whose message starts with "`name`: " and
/// contains every part.
inline ::testing::AssertionResult refused_mentioning(const Result<StreamView>& result, std::string_view name,
                                                     std::initializer_list<std::string_view> parts) {
  if (result.ok()) return ::testing::AssertionFailure() << "the stream was accepted";
  const std::string& message = result.error();
  if (message.rfind(std::string(name) + ": ", 0) != 0) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not start with the stream's name";
  }
  for (std::string_view part : parts) {
    if (message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << message << "\" does not mention \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

/// `base` with `patch` applied, the total size and the checksum fixed.
template <class Patch>
std::vector<uint8_t> patched(const std::vector<uint8_t>& base, Patch patch) {
  std::vector<uint8_t> bytes = base;
  patch(bytes);
  fix_size_and_checksum(bytes);
  return bytes;
}

/// Passes when both opens (an engine's and the full check) refuse `bytes`,
/// named `name`, naming it and every part.
inline ::testing::AssertionResult refused_by_both_opens(const std::vector<uint8_t>& bytes, const char* name,
                                                        std::initializer_list<std::string_view> parts) {
  for (const StreamCheck check : {StreamCheck::kFast, StreamCheck::kFull}) {
    ::testing::AssertionResult r = refused_mentioning(StreamView::open(bytes, name, check), name, parts);
    if (!r) return r << (check == StreamCheck::kFast ? " (fast open)" : " (full open)");
  }
  return ::testing::AssertionSuccess();
}

/// The key stream's byte offset from the header.
inline uint32_t key_stream_offset(std::span<const uint8_t> bytes) {
  return get_u32(bytes, header_offset::kKeyStreamOffset);
}

/// Byte-exact equality of two poses (Transform is ten floats, no padding).
inline bool same_bits(std::span<const Transform> a, std::span<const Transform> b) {
  static_assert(sizeof(Transform) == 10 * sizeof(float));
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

/// Samples `a` and `b` at every frame time of `times` (poses of `bones`
/// bones) and expects the same bits from both.
inline void expect_same_poses(Player& a, Player& b, std::span<const float> times, size_t bones) {
  std::vector<Transform> pose_a(bones), pose_b(bones);
  for (const float t : times) {
    a.sample_frame(t, pose_a);
    b.sample_frame(t, pose_b);
    EXPECT_TRUE(same_bits(pose_a, pose_b)) << "frame time " << t;
  }
}

/// Checks that a local pose is, bit for bit, what evaluate_fitted gives for
/// every track of `clip` at frame time `frame_time`.
inline ::testing::AssertionResult matches_fitted(const FittedClip& clip, std::span<const Transform> pose,
                                                 float frame_time) {
  for (size_t b = 0; b < clip.parents.size(); ++b) {
    float t[4], r[4], s[4];
    evaluate_fitted(clip.tracks[3 * b + 0], frame_time, t);
    evaluate_fitted(clip.tracks[3 * b + 1], frame_time, r);
    evaluate_fitted(clip.tracks[3 * b + 2], frame_time, s);
    const Transform expected{{t[0], t[1], t[2]}, {r[0], r[1], r[2], r[3]}, {s[0], s[1], s[2]}};
    if (std::memcmp(&expected, &pose[b], sizeof(Transform)) != 0) {
      const Transform& got = pose[b];
      return ::testing::AssertionFailure()
             << "bone " << b << " at frame time " << frame_time << ": player T(" << got.translation.x << ", "
             << got.translation.y << ", " << got.translation.z << ") R(" << got.rotation.x << ", " << got.rotation.y
             << ", " << got.rotation.z << ", " << got.rotation.w << ") S(" << got.scale.x << ", " << got.scale.y << ", "
             << got.scale.z << "), reference T(" << t[0] << ", " << t[1] << ", " << t[2] << ") R(" << r[0] << ", "
             << r[1] << ", " << r[2] << ", " << r[3] << ") S(" << s[0] << ", " << s[1] << ", " << s[2] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

/// A small clip the stream tests start from: a chain of three bones, 40
/// frames at 30 Hz, every bone moving, bone 2 spinning (so quantized keys
/// cross hemispheres) and scaling, bone 0 with one constant translation
/// component: most tracks get more than three keys.
inline RandomClip make_wave_clip(uint32_t frames = 40) {
  RandomClip out;
  out.skeleton.bone_names = {"root", "arm", "hand"};
  out.skeleton.parents = {-1, 0, 1};
  out.skeleton.rest_pose.assign(3, Transform{});
  RawClip& clip = out.clip;
  clip.name = "wave";
  clip.sample_rate_hz = 30.f;
  clip.frame_count = frames;
  clip.bones.resize(3);
  for (uint32_t f = 0; f < frames; ++f) {
    const float t = static_cast<float>(f);
    for (uint32_t b = 0; b < 3; ++b) {
      const float phase = static_cast<float>(b);
      BoneTracks& bone = clip.bones[b];
      bone.translations.push_back(
          {0.1f * std::sin(0.2f * t + phase), 0.5f + 0.05f * std::cos(0.3f * t), b == 0 ? 0.f : 0.2f});
      const float angle = b == 2 ? 0.4f * t : 1.5f * std::sin(0.15f * t + phase);
      bone.rotations.push_back(quat_from_axis_angle(Vec3{0.f, 0.6f, 0.8f}, angle));
      const float s = b == 2 ? 1.f + 0.2f * std::sin(0.25f * t) : 1.f;
      bone.scales.push_back({s, s, s});
    }
  }
  for (BoneTracks& bone : clip.bones) make_rotations_continuous(bone.rotations);
  return out;
}

/// Frames of `n` keys of a track over 0..last: first at 0, last at `last`,
/// non-decreasing, never three at one frame (two make a discontinuity).
inline std::vector<uint16_t> random_key_frames(TestRandom& rng, uint32_t n, uint32_t last) {
  if (n == 1) return {0};
  std::vector<uint32_t> uses(last + 1, 0);
  uses[0] = 1;
  uses[last] += 1;
  std::vector<uint16_t> frames = {0, static_cast<uint16_t>(last)};
  for (uint32_t attempts = 0; frames.size() < n && attempts < 64 * n; ++attempts) {
    // Discontinuities are rare in real clips but the edge cases matter: one
    // draw in eight repeats an existing frame.
    const uint32_t f =
        rng.chance(0.125f) ? frames[rng.integer(0, static_cast<uint32_t>(frames.size()) - 1)] : rng.integer(0, last);
    if (uses[f] >= 2) continue;
    ++uses[f];
    frames.push_back(static_cast<uint16_t>(f));
  }
  std::sort(frames.begin(), frames.end());
  return frames;
}

/// A unit quaternion drawn from `rng`.
inline Quat random_unit_rotation(TestRandom& rng) {
  while (true) {
    const Quat q{rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f)};
    const float n = length(q);
    if (n > 0.1f && n <= 1.f) return normalize(q);
  }
}

/// The next code of a random walk within +-limit: mostly small steps, now
/// and then a jump (a Rice escape) or a code at the edge of the range.
inline int32_t random_code_step(TestRandom& rng, int32_t code, int32_t limit) {
  int64_t next = code;
  const float draw = rng.unit();
  if (draw < 0.05f) {
    next = rng.chance(0.5f) ? limit : -limit;
  } else if (draw < 0.15f) {
    next = static_cast<int64_t>(rng.integer(0, 2 * static_cast<uint32_t>(limit))) - limit;
  } else {
    next += static_cast<int64_t>(rng.integer(0, 80)) - 40;
  }
  return static_cast<int32_t>(std::clamp<int64_t>(next, -limit, limit));
}

/// A fitted clip made directly (not by the fitter) with random codings,
/// steps and codes: identity, constant and animated tracks, vec3 tracks
/// coding any subset of their components, relative and full rotations whose
/// keys cross hemispheres, codes at the edges of their range and jumps that
/// need Rice escapes, discontinuities anywhere (frame 0 and the last frame
/// included), 2- and 3-key tracks. It passes pack's checks. `frame_count` 0
/// draws one in 2..max_frames.
inline FittedClip make_random_fitted_clip(uint32_t seed, uint32_t max_bones = 4, uint32_t max_frames = 80,
                                          uint32_t frame_count = 0) {
  TestRandom rng(seed);
  FittedClip clip;
  clip.name = "random_fitted_" + std::to_string(seed);
  static constexpr float kRates[] = {24.f, 30.f, 60.f, 29.97f, 8.f};
  clip.sample_rate_hz = kRates[rng.integer(0, 4)];
  clip.frame_count = rng.integer(2, max_frames);
  if (frame_count != 0) clip.frame_count = frame_count;
  const uint32_t last = clip.frame_count - 1;
  const uint32_t bones = rng.integer(1, max_bones);
  for (uint32_t b = 0; b < bones; ++b) {
    clip.parents.push_back(b == 0 || rng.chance(0.2f) ? -1 : static_cast<int32_t>(rng.integer(0, b - 1)));
  }
  if (rng.chance(0.5f)) {
    for (uint32_t b = 0; b < bones; ++b) clip.bone_names.push_back("bone" + std::to_string(b));
  }
  for (uint32_t t = 0; t < 3 * bones; ++t) {
    FittedTrack track;
    track.bone = t / 3;
    track.kind = static_cast<TrackKind>(t % 3);
    const bool rotation = track.kind == TrackKind::kRotation;
    const float coding_draw = rng.unit();
    if (coding_draw < 0.3f) {
      // Identity or constant: no keys, the exact value in place.
      float value[4] = {0.f, 0.f, 0.f, 0.f};
      if (coding_draw < 0.15f) {
        track.coding = TrackCoding::kIdentity;
        if (rotation) value[3] = 1.f;
        if (track.kind == TrackKind::kScale) value[0] = value[1] = value[2] = 1.f;
      } else {
        track.coding = TrackCoding::kConstant;
        if (rotation) {
          const Quat q = random_unit_rotation(rng);
          value[0] = q.x, value[1] = q.y, value[2] = q.z, value[3] = q.w;
        } else {
          for (int c = 0; c < 3; ++c) value[c] = rng.uniform(-3.f, 3.f);
        }
      }
      std::copy(value, value + 4, track.quantization.constant);
      clip.tracks.push_back(std::move(track));
      continue;
    }
    track.coding = TrackCoding::kAnimated;
    TrackQuantization& q = track.quantization;
    q.step = std::pow(10.f, rotation ? rng.uniform(-6.f, -1.f) : rng.uniform(-6.f, 0.f));
    if (rotation) {
      q.rotation = rng.chance(0.6f) ? RotationCoding::kRelative : RotationCoding::kFull;
      q.coded_mask = q.rotation == RotationCoding::kRelative ? 0b0111 : 0b1111;
      if (q.rotation == RotationCoding::kRelative) {
        const Quat r = random_unit_rotation(rng);
        const float reference[4] = {r.x, r.y, r.z, r.w};
        q.reference_code = static_cast<uint32_t>(quantize_smallest_three(reference, kReferenceComponentBits));
        dequantize_smallest_three(q.reference_code, kReferenceComponentBits, q.reference);
      }
    } else {
      q.coded_mask = static_cast<uint8_t>(rng.integer(1, 7));
      for (int c = 0; c < 3; ++c) q.constant[c] = q.coded(c) ? 0.f : rng.uniform(-2.f, 2.f);
    }
    // Rotation components stay within 1 (the stream refuses keys beyond 2).
    const int32_t limit = rotation ? std::min<int32_t>(kMaxCodeMagnitude, static_cast<int32_t>(1.f / q.step))
                                   : (rng.chance(0.8f) ? 5000 : kMaxCodeMagnitude);
    const uint32_t max_keys = std::min<uint32_t>(2 * clip.frame_count, 40);
    const uint32_t shape = rng.integer(0, 4);
    const uint32_t n = shape < 2 ? shape + 2 : rng.integer(2, max_keys);
    const std::vector<uint16_t> frames = random_key_frames(rng, std::min(n, max_keys), last);
    int32_t codes[4];
    for (int32_t& c : codes) c = static_cast<int32_t>(rng.integer(0, 2 * static_cast<uint32_t>(limit))) - limit;
    for (const uint16_t frame : frames) {
      FittedKey key;
      key.frame = frame;
      for (int c = 0; c < 4; ++c) {
        codes[c] = random_code_step(rng, codes[c], limit);
        key.codes[c] = q.coded(c) ? codes[c] : 0;
      }
      key.decoded = decode_key(track.kind, q, key.codes, frame);
      if (rotation && !track.keys.empty()) align_hemisphere(track.keys.back().decoded, key.decoded);
      std::copy(key.decoded.value, key.decoded.value + 4, key.ideal);
      track.keys.push_back(key);
    }
    clip.tracks.push_back(std::move(track));
  }
  return clip;
}

}  // namespace ks::test
