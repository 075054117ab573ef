#pragma once
// How a key of the key stream is written (DESIGN §7, format version 5):
// fixed-width fields, their widths set per segment of a track's stream keys.
//
// A track's stream keys (keys 3, 4, ...) fall in segments of
// kKeysPerSegment. The key widths section holds, per segment, the width of
// the frame difference (minus the track's frame_delta_min) and of each coded
// component's zigzagged code difference: the bits the largest of the
// segment's keys needs. Every key of the segment is then exactly those
// fields back to back, low bits first, then the "negated" bit on tracks
// that carry one. A key's length follows from its track alone, so a reader
// extracts every field from one 64-bit load at offsets known before the
// load, with no serial chain of variable-length codes; and a reader that
// resumes at a jump frame finds the widths by the track's key index, with
// nothing saved in the jump frame. (Keys 0..2 and the keys a jump frame
// saves stay Rice coded, key_coding.h: a few per track.)

#include <bit>
#include <cstdint>
#include <span>

#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

inline constexpr uint32_t kKeysPerSegment = 16;
inline constexpr uint32_t kSegmentWidthBits = 5;
/// A frame difference fits a frame.
inline constexpr uint32_t kMaxFrameDifferenceBits = kFrameBits;
/// The zigzagged difference of two codes within +-kMaxCodeMagnitude (2^24 - 1).
inline constexpr uint32_t kMaxCodeDifferenceBits = 26;
/// Frame difference, then components 0..3.
inline constexpr uint32_t kKeyFields = 5;

/// The segment holding key `key` (>= kInitialKeysPerTrack) of its track.
constexpr uint32_t segment_of_key(uint32_t key) { return (key - kInitialKeysPerTrack) / kKeysPerSegment; }
/// The first key of the segment after the one holding key `key` (>= kInitialKeysPerTrack).
constexpr uint32_t next_segment_key(uint32_t key) {
  return kInitialKeysPerTrack + (segment_of_key(key) + 1) * kKeysPerSegment;
}
/// True when key `key` (>= kInitialKeysPerTrack) is the first of its segment.
constexpr bool opens_segment(uint32_t key) { return (key - kInitialKeysPerTrack) % kKeysPerSegment == 0; }
/// Segments of a track of `key_count` keys (none for three keys or fewer).
constexpr uint32_t segment_count(uint32_t key_count) {
  return key_count <= kInitialKeysPerTrack ? 0 : (key_count - kInitialKeysPerTrack + kKeysPerSegment - 1) / kKeysPerSegment;
}
/// Bits of one segment's widths: the frame's and one per coded component.
constexpr uint32_t segment_width_bits(uint8_t coded_mask) {
  // Coded components by table: std::popcount is a library call on x86-64
  // without -mpopcnt, and this runs whenever a track opens a segment.
  constexpr uint8_t kCoded[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return kSegmentWidthBits * (1u + kCoded[coded_mask & 0xFu]);
}

/// Where the fields of the keys of one segment sit. A component a track does
/// not code has width 0: it reads as a difference of 0, so a reader needs
/// no branch on the coded components.
struct StreamKeyLayout {
  uint32_t mask[kKeyFields] = {0, 0, 0, 0, 0};  // (1 << width) - 1
  uint8_t shift[kKeyFields] = {0, 0, 0, 0, 0};  // bit of the field within the key
  uint8_t negation_shift = 0;                   // bit of the "negated" bit, when negation_mask is 1
  uint8_t negation_mask = 0;
  uint8_t key_bits = 0;                         // every field and the "negated" bit: at most 121
};

/// One segment of a track's stream keys as a reader takes it
/// (StreamView::segments, built at open): where its first key starts in the
/// plain key stream and the widths of its keys' fields, packed in one word
/// (8 bytes a segment: 15-18% of the shared mocap takes' stream bytes, where
/// a layout spelled out, 12 bytes, took 22-26%).
struct StreamSegment {
  uint32_t start_bit = 0;
  /// Field f's width (the frame difference's, then components 0..3; 0 for a
  /// component not coded) at bits 5f..5f+4, then 1 bit: keys end with a
  /// "negated" bit.
  uint32_t widths = 0;
};
inline constexpr uint32_t kSegmentNegationBit = kKeyFields * kSegmentWidthBits;
static_assert(kSegmentNegationBit < 32);

/// The layout of fields of `widths` (kKeyFields of them: the frame's, then
/// components 0..3; 0 for a component not coded), each at most 31 bits.
inline StreamKeyLayout make_stream_key_layout(const uint32_t* widths, bool negation_bits) {
  StreamKeyLayout layout;
  uint32_t at = 0;
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    layout.shift[f] = static_cast<uint8_t>(at);
    layout.mask[f] = static_cast<uint32_t>((uint64_t{1} << widths[f]) - 1u);
    at += widths[f];
  }
  layout.negation_shift = static_cast<uint8_t>(at);
  layout.negation_mask = negation_bits ? 1 : 0;
  layout.key_bits = static_cast<uint8_t>(at + layout.negation_mask);
  return layout;
}

/// Reads one segment's widths from `widths` (the key widths section,
/// positioned at the segment) into `out`: the frame's, then one per
/// component of `coded_mask` (0 for the others).
inline void read_segment_widths(BitReader& widths, uint8_t coded_mask, uint32_t (&out)[kKeyFields]) {
  out[0] = widths.read(kSegmentWidthBits);
  for (uint32_t c = 0; c < 4; ++c) out[c + 1] = ((coded_mask >> c) & 1u) != 0 ? widths.read(kSegmentWidthBits) : 0;
}

/// The layout of segment `segment` of a track whose widths start at bit
/// `track_bit` of the key widths section `section`.
inline StreamKeyLayout segment_layout(std::span<const uint8_t> section, uint64_t track_bit, uint32_t segment,
                                      uint8_t coded_mask, bool negation_bits) {
  BitReader widths(section, track_bit + uint64_t{segment} * segment_width_bits(coded_mask));
  uint32_t w[kKeyFields];
  read_segment_widths(widths, coded_mask, w);
  return make_stream_key_layout(w, negation_bits);
}

/// Reads a stream key laid out as `layout`, written as differences from the
/// key before it: `frame` and `codes` hold that key's and become this one's;
/// returns whether the key is negated. Unsigned arithmetic, so untrusted
/// differences wrap instead of overflowing (StreamView::open refuses codes
/// and frames out of range). Reader: BitReader.
template <class Reader>
inline bool read_stream_key(Reader& reader, const StreamKeyLayout& layout, uint32_t frame_delta_min, uint32_t& frame,
                            int32_t codes[4]) {
  constexpr uint32_t kWindowBits = 57;  // what peek_window() guarantees
  if (layout.key_bits <= kWindowBits) [[likely]] {
    // Every field from one load: the offsets are known before it.
    const uint64_t bits = reader.peek_window();
    frame += (static_cast<uint32_t>(bits >> layout.shift[0]) & layout.mask[0]) + frame_delta_min;
    for (uint32_t c = 0; c < 4; ++c) {
      const uint32_t field = static_cast<uint32_t>(bits >> layout.shift[c + 1]) & layout.mask[c + 1];
      codes[c] = static_cast<int32_t>(static_cast<uint32_t>(codes[c]) + static_cast<uint32_t>(unzigzag(field)));
    }
    const bool negated = ((bits >> layout.negation_shift) & layout.negation_mask) != 0;
    reader.skip(layout.key_bits);
    return negated;
  }
  // A key wider than one load (wide steps on every component): field by field.
  frame += reader.read(static_cast<uint32_t>(std::bit_width(layout.mask[0]))) + frame_delta_min;
  for (uint32_t c = 0; c < 4; ++c) {
    const uint32_t field = reader.read(static_cast<uint32_t>(std::bit_width(layout.mask[c + 1])));
    codes[c] = static_cast<int32_t>(static_cast<uint32_t>(codes[c]) + static_cast<uint32_t>(unzigzag(field)));
  }
  return reader.read(layout.negation_mask) != 0;
}

}  // namespace ks
