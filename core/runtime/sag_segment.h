#pragma once
// Sag segments: a key layout in which every key of a track is reached in
// one step, a candidate for format v12's random access (issue 41), the
// reading half; core/codec/sag_segment_writer.h writes it. No stream uses
// it yet: reaching a window this way costs more than v11's seek as
// measured so far (docs/benchmarks.md, "What reaching a window costs in
// sag segments").
//
// A track's stream keys (keys 3, 4, ...) fall in segments of
// kKeysPerSegment, numbered by position as bisection segments are:
// position 0 is the key before the segment (the previous segment's anchor,
// or the track's key 2), positions 1..count the segment's keys. The last
// (position count) is the anchor, stored absolute. The middle (position
// count / 2, when count >= 2) is the sag key, coded against the chord from
// position 0 to the anchor. Every other key is coded against the chord
// bent by the parabola through the sag key. So a seek reads two heads (the
// segment's and the previous one, for its anchor) and then any key it
// wants: no key decodes through another but the sag key, which the head
// holds. keystream-key-layout-probe: on the shared mocap takes the layout
// costs 0.997-1.025 of v11's bytes with v11's jump frames, which it does
// not need (docs/benchmarks.md, "Windows set directly").
//
// A segment's bits: the anchor (frame in `frame_bits`, each coded
// component two's complement in the track's absolute width, the "negated"
// bit on tracks that carry one); when count >= 2 the sag record's widths
// and the sag record; when count >= 3 the other records' widths and the
// records, positions 1..count-1 but the sag key's, in order. A record is
// the frame residual (against the frames spread evenly from position 0 to
// the anchor) and the coded components' residuals, zigzag, then the
// "negated" bit; widths are kSegmentWidthBits each, the frame's and each
// coded component's.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "keystream/runtime/bisection_segment.h"
#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/quantization.h"
#include "keystream/runtime/stream_key_layout.h"

namespace ks {

/// The sag key's position in a segment of `count` keys (0: none, count < 2).
constexpr uint32_t sag_position(uint32_t count) {
  return count >= 2 ? count / 2 : 0;
}

/// The record index (0..count-3) of a position other than the sag key's
/// and the anchor's.
constexpr uint32_t sag_record_of(uint32_t position, uint32_t count) {
  return position < sag_position(count) ? position - 1 : position - 2;
}

/// floor(x), x first held within +-2^30 (only a forged stream's keys reach
/// past it), without a library call (x86-64's baseline has no rounding
/// instruction); what SIMD readers' min, max and floor give.
inline float sag_floor(float x) {
  constexpr float kLimit = 0x1p30f;
  x = x < -kLimit ? -kLimit : (x > kLimit ? kLimit : x);
  const float truncated = static_cast<float>(static_cast<int32_t>(x));
  return truncated > x ? truncated - 1.f : truncated;
}

/// The guess of the frame at `position` of a segment of `count` keys: the
/// frames from `before_frame` to `anchor_frame` spread evenly, rounded half
/// up. Float arithmetic (-ffp-contract=off), so that SIMD readers round alike.
inline uint32_t sag_frame_guess(uint32_t before_frame, uint32_t anchor_frame, uint32_t position, uint32_t count) {
  const int64_t run = static_cast<int64_t>(anchor_frame) - static_cast<int64_t>(before_frame);
  if (run <= 0 || count == 0) return before_frame;
  const float step =
      sag_floor(static_cast<float>(run) * static_cast<float>(position) / static_cast<float>(count) + 0.5f);
  return before_frame + static_cast<uint32_t>(step);
}

/// The chord and its bend, per coded component, from a segment's head.
struct SagCurve {
  uint32_t before_frame = 0;
  float run = 0.f;         // anchor frame - before frame (0: no guess but the key before)
  float bend_scale = 0.f;  // 1 / (u_sag (1 - u_sag)), 0 when the sag key is near an end
  int32_t before_code[4] = {0, 0, 0, 0};
  float rise[4] = {0.f, 0.f, 0.f, 0.f};  // anchor code - before code
  float sag[4] = {0.f, 0.f, 0.f, 0.f};   // the sag key's height over the chord
};

/// The fraction of the way from `before_frame` at `frame`, within 0..1.
inline float sag_fraction(const SagCurve& curve, uint32_t frame) {
  if (!(curve.run > 0.f)) return 0.f;
  const float u =
      static_cast<float>(static_cast<int64_t>(frame) - static_cast<int64_t>(curve.before_frame)) / curve.run;
  return u < 0.f ? 0.f : (u > 1.f ? 1.f : u);
}

/// The chord from `before` to `anchor`, bent through `sag_key` when there
/// is one (`has_sag`).
inline SagCurve make_sag_curve(const BisectionKey& before, const BisectionKey& anchor, const BisectionKey& sag_key,
                               bool has_sag) {
  SagCurve curve;
  curve.before_frame = before.frame;
  const int64_t run = static_cast<int64_t>(anchor.frame) - static_cast<int64_t>(before.frame);
  curve.run = run > 0 ? static_cast<float>(run) : 0.f;
  const float u = sag_fraction(curve, sag_key.frame);
  const float spread = u * (1.f - u);
  // Near an end the parabola would magnify the sag key's residual: no bend.
  curve.bend_scale = has_sag && spread > 0.0625f ? 1.f / spread : 0.f;
  for (uint32_t c = 0; c < 4; ++c) {
    curve.before_code[c] = before.codes[c];
    curve.rise[c] = static_cast<float>(static_cast<int64_t>(anchor.codes[c]) - static_cast<int64_t>(before.codes[c]));
    const float height =
        static_cast<float>(static_cast<int64_t>(sag_key.codes[c]) - static_cast<int64_t>(before.codes[c]));
    curve.sag[c] = has_sag ? height - curve.rise[c] * u : 0.f;
  }
  return curve;
}

/// The guess of component `c`'s code at fraction `u` of the chord
/// (sag_fraction), and at `frame`: the bent chord, rounded half up, held
/// within +-kMaxCodeMagnitude.
inline int32_t sag_code_guess_at(const SagCurve& curve, uint32_t c, float u) {
  const float bend = u * (1.f - u) * curve.bend_scale;
  const float offset = sag_floor(curve.rise[c] * u + curve.sag[c] * bend + 0.5f);
  const float guess = static_cast<float>(curve.before_code[c]) + offset;
  constexpr float kLimit = static_cast<float>(kMaxCodeMagnitude);
  return static_cast<int32_t>(guess < -kLimit ? -kLimit : (guess > kLimit ? kLimit : guess));
}
inline int32_t sag_code_guess(const SagCurve& curve, uint32_t c, uint32_t frame) {
  return sag_code_guess_at(curve, c, sag_fraction(curve, frame));
}

/// What a reader finds in a segment's head: the anchor, the sag key, the
/// curve the other keys are guessed from, and where their records are.
struct SagSegmentHead {
  uint32_t count = 0;
  BisectionKey before;
  BisectionKey anchor;
  BisectionKey sag_key;  // position sag_position(count); unset when count < 2
  SagCurve curve;
  StreamKeyLayout records;   // the records' fields (count >= 3)
  uint64_t records_bit = 0;  // the first record
  uint64_t end_bit = 0;      // the bit after the segment
};

namespace detail {

// One record's key: residuals at `reader`'s position against `frame_guess`
// and the component guesses `guess(c, frame)`.
template <class Guess>
BisectionKey read_sag_record(BitReader& reader, const StreamKeyLayout& layout, uint32_t frame_guess, Guess guess) {
  const auto field = [&](uint32_t f) { return reader.read(static_cast<uint32_t>(std::bit_width(layout.mask[f]))); };
  BisectionKey key;
  key.frame = frame_guess + static_cast<uint32_t>(unzigzag(field(0)));
  for (uint32_t c = 0; c < 4; ++c) {
    // A component not coded has width 0 and codes 0: it stays 0.
    const uint32_t residual = field(c + 1);
    key.codes[c] =
        static_cast<int32_t>(static_cast<uint32_t>(guess(c, key.frame)) + static_cast<uint32_t>(unzigzag(residual)));
  }
  key.negated = reader.read(layout.negation_mask) != 0;
  return key;
}

inline StreamKeyLayout read_sag_widths(BitReader& reader, const BisectionTrackCoding& track) {
  uint32_t widths[kKeyFields];
  read_segment_widths(reader, track.coded_mask, widths);
  return make_stream_key_layout(widths, track.negation_bits);
}

}  // namespace detail

/// The anchor of the segment at `reader`'s position, the first of its
/// fields: all the segment after it needs of this one.
inline BisectionKey read_sag_anchor(BitReader& reader, const BisectionTrackCoding& track) {
  BisectionKey anchor;
  anchor.frame = reader.read(track.frame_bits);
  for (uint32_t c = 0; c < 4; ++c) {
    if (((track.coded_mask >> c) & 1u) != 0) {
      anchor.codes[c] = sign_extend(reader.read(track.absolute_bits), track.absolute_bits);
    }
  }
  anchor.negated = track.negation_bits && reader.read(1) != 0;
  return anchor;
}

/// Reads the head of the segment of `count` (1..kKeysPerSegment) keys at
/// `reader`'s position, `before` the key before it.
inline SagSegmentHead read_sag_head(BitReader& reader, const BisectionTrackCoding& track, uint32_t count,
                                    const BisectionKey& before) {
  SagSegmentHead head;
  head.count = count;
  head.before = before;
  head.anchor = read_sag_anchor(reader, track);
  const uint32_t sag = sag_position(count);
  if (sag != 0) {
    const StreamKeyLayout sag_layout = detail::read_sag_widths(reader, track);
    const uint32_t frame_guess = sag_frame_guess(before.frame, head.anchor.frame, sag, count);
    head.sag_key = detail::read_sag_record(reader, sag_layout, frame_guess, [&](uint32_t c, uint32_t frame) {
      return bisection_code_guess(before.codes[c], head.anchor.codes[c], before.frame, head.anchor.frame, frame);
    });
  }
  head.curve = make_sag_curve(before, head.anchor, head.sag_key, sag != 0);
  if (count >= 3) head.records = detail::read_sag_widths(reader, track);
  head.records_bit = reader.position();
  head.end_bit = head.records_bit + (count >= 3 ? uint64_t{count - 2} * head.records.key_bits : 0);
  return head;
}

/// The frame of the key at `position` (0..count) alone: one field.
inline uint32_t read_sag_frame(BitReader& reader, const SagSegmentHead& head, uint32_t position) {
  if (position == 0) return head.before.frame;
  if (position == head.count) return head.anchor.frame;
  if (position == sag_position(head.count)) return head.sag_key.frame;
  reader.seek(head.records_bit + uint64_t{sag_record_of(position, head.count)} * head.records.key_bits);
  const uint32_t guess = sag_frame_guess(head.before.frame, head.anchor.frame, position, head.count);
  return guess +
         static_cast<uint32_t>(unzigzag(reader.read(static_cast<uint32_t>(std::bit_width(head.records.mask[0])))));
}

/// The key at `position` (0..count) of the segment.
inline BisectionKey read_sag_key(BitReader& reader, const SagSegmentHead& head, uint32_t position) {
  if (position == 0) return head.before;
  if (position == head.count) return head.anchor;
  if (position == sag_position(head.count)) return head.sag_key;
  reader.seek(head.records_bit + uint64_t{sag_record_of(position, head.count)} * head.records.key_bits);
  const uint32_t guess = sag_frame_guess(head.before.frame, head.anchor.frame, position, head.count);
  return detail::read_sag_record(reader, head.records, guess,
                                 [&](uint32_t c, uint32_t frame) { return sag_code_guess(head.curve, c, frame); });
}

/// The last position (0..count) whose key's frame is at or before `frame`,
/// by bisection on the frames alone (a forged segment's frames out of
/// order give some position in range).
inline uint32_t find_in_sag_segment(BitReader& reader, const SagSegmentHead& head, uint32_t frame) {
  if (head.anchor.frame <= frame) return head.count;
  uint32_t left = 0, right = head.count;
  while (right - left >= 2) {
    const uint32_t middle = (left + right) / 2;
    if (read_sag_frame(reader, head, middle) <= frame) {
      left = middle;
    } else {
      right = middle;
    }
  }
  return left;
}

/// Every key of the segment at `reader`'s position: out[p] is the key at
/// position p (out[0] = `before`). Leaves the reader after the segment.
inline void read_sag_segment(BitReader& reader, const BisectionTrackCoding& track, uint32_t count,
                             const BisectionKey& before, BisectionKey (&out)[kKeysPerSegment + 1]) {
  const SagSegmentHead head = read_sag_head(reader, track, count, before);
  for (uint32_t p = 0; p <= count; ++p) out[p] = read_sag_key(reader, head, p);
  reader.seek(head.end_bit);
}

}  // namespace ks
