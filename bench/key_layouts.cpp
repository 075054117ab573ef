#include "bench/key_layouts.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "keystream/codec/bisection_segment_writer.h"
#include "keystream/codec/bit_writer.h"
#include "keystream/codec/key_cost.h"
#include "keystream/codec/sag_segment_writer.h"
#include "keystream/runtime/stream_key_layout.h"

namespace ks {

namespace {

uint64_t zigzag64(int64_t v) {
  return v >= 0 ? uint64_t(v) << 1 : (uint64_t(-(v + 1)) << 1) | 1u;
}

// Widths of one segment's fields: the largest value of each.
struct Widths {
  uint32_t field[kKeyFields] = {};
  uint32_t keys = 0;
  void add(uint32_t f, uint64_t value) { field[f] = std::max(field[f], bits_for(value)); }
  // The widths (kSegmentWidthBits each) and the keys, "negated" bit included.
  uint64_t bits(uint8_t coded_mask, bool negation_bits) const {
    uint64_t per_key = negation_bits ? 1 : 0;
    for (uint32_t f = 0; f < kKeyFields; ++f) per_key += field[f];
    return keys == 0 ? 0 : segment_width_bits(coded_mask) + keys * per_key;
  }
};

}  // namespace

LayoutBits track_bits(const FittedTrack& track, uint32_t frame_count, BisectionTrack& laid_out) {
  LayoutBits out;
  if (track.keys.size() <= kInitialKeysPerTrack) return out;
  const KeyCoding key_coding = choose_key_coding(track);
  BisectionTrackCoding coding;
  coding.coded_mask = track.quantization.coded_mask;
  coding.absolute_bits = key_coding.absolute_bits;
  coding.frame_bits = static_cast<uint8_t>(bits_for(frame_count - 1));
  coding.negation_bits = key_coding.negation_bits;
  std::vector<BisectionKey> k;
  for (const FittedKey& key : track.keys) {
    BisectionKey x;
    x.frame = key.frame;
    std::copy(key.codes, key.codes + 4, x.codes);
    x.negated = is_negated(track, key);
    k.push_back(x);
  }
  const auto frame_field = [&](size_t i) { return uint64_t{k[i].frame - k[i - 1].frame - key_coding.frame_delta_min}; };
  const auto code_field = [&](size_t i, uint32_t c) { return zigzag64(int64_t{k[i].codes[c]} - k[i - 1].codes[c]); };
  // An absolute key, as a bisection segment's anchor is written.
  const uint64_t anchor_bits = coding.frame_bits + uint64_t{coding.absolute_bits} * track.quantization.coded_count() +
                               (coding.negation_bits ? 1 : 0);
  BitWriter bisection, sag_segments;
  for (size_t s = kInitialKeysPerTrack; s < k.size(); s += kKeysPerSegment) {
    const size_t e = std::min(k.size(), s + kKeysPerSegment);
    // Each key as its difference from the one before: v11 (delta), and
    // after an absolute first key per segment (anchored).
    const auto add_difference = [&](Widths& w, size_t i) {
      ++w.keys;
      w.add(0, frame_field(i));
      for (uint32_t c = 0; c < 4; ++c) {
        if (track.quantization.coded(static_cast<int>(c))) w.add(c + 1, code_field(i, c));
      }
    };
    Widths delta, anchored;
    for (size_t i = s; i < e; ++i) {
      add_difference(delta, i);
      if (i != s) add_difference(anchored, i);  // the anchored layout's first key is its anchor
    }
    // O(1) layouts: every field of a key at a known place, found without
    // reading another key. ranged: each field less the segment's least
    // (stored absolute in its head).
    const FittedKey& before = track.keys[s - 1];
    const FittedKey& last_key = track.keys[e - 1];
    const int64_t span = int64_t{last_key.frame} - before.frame;
    int64_t least[4] = {};
    for (uint32_t c = 0; c < 4; ++c) {
      least[c] = k[s].codes[c];
      for (size_t j = s; j < e; ++j) least[c] = std::min<int64_t>(least[c], k[j].codes[c]);
    }
    Widths ranged;
    for (size_t i = s; i < e; ++i) {
      ++ranged.keys;
      ranged.add(0, uint64_t(int64_t{k[i].frame} - before.frame));
      for (uint32_t c = 0; c < 4; ++c) {
        if (track.quantization.coded(static_cast<int>(c)))
          ranged.add(c + 1, uint64_t(int64_t{k[i].codes[c]} - least[c]));
      }
    }
    // Key i against the line from `left` (key left_index) to `right` (key
    // right_index): its frame against the frames spread evenly between.
    const auto against = [&](size_t i, const FittedKey& left, const FittedKey& right, size_t left_index,
                             size_t right_index, Widths& w) {
      ++w.keys;
      const int64_t run = int64_t{right.frame} - left.frame;
      const int64_t df = int64_t{k[i].frame} - left.frame;
      const int64_t guess_f =
          (run * int64_t(i - left_index) + int64_t(right_index - left_index) / 2) / int64_t(right_index - left_index);
      w.add(0, zigzag64(df - guess_f));
      for (uint32_t c = 0; c < 4; ++c) {
        if (!track.quantization.coded(static_cast<int>(c))) continue;
        const double guess = double(left.codes[c]) + double(int64_t{right.codes[c]} - left.codes[c]) * double(df) /
                                                         double(std::max<int64_t>(run, 1));
        w.add(c + 1, zigzag64(int64_t{k[i].codes[c]} - std::llround(guess)));
      }
    };
    // chord: each key but the last (the head's anchor) against the line
    // from the key before the segment (the previous head's anchor) to it.
    Widths chord;
    for (size_t i = s; i + 1 < e; ++i) against(i, before, last_key, s - 1, e - 1, chord);
    // chord2: the middle key against the chord, the others against the
    // chord of their half (two dependent steps, still O(1)).
    Widths middle, halves;
    if (e - s >= 3) {
      const size_t m = s + (e - s - 1) / 2;
      against(m, before, last_key, s - 1, e - 1, middle);
      for (size_t i = s; i < m; ++i) against(i, before, track.keys[m], s - 1, m, halves);
      for (size_t i = m + 1; i + 1 < e; ++i) against(i, track.keys[m], last_key, m, e - 1, halves);
      out.chord2 += anchor_bits + middle.bits(coding.coded_mask, coding.negation_bits) +
                    halves.bits(coding.coded_mask, coding.negation_bits);
      // sag: one step: the chord bent by a parabola through the middle key
      // (coded against the chord, as chord2's is).
      const Widths& sag_key = middle;
      Widths bent;
      const int64_t run = int64_t{last_key.frame} - before.frame;
      const int64_t dm = int64_t{k[m].frame} - before.frame;
      const double um = double(dm) / double(std::max<int64_t>(run, 1));
      for (size_t i = s; i + 1 < e; ++i) {
        if (i == m) continue;
        ++bent.keys;
        const int64_t df = int64_t{k[i].frame} - before.frame;
        const double u = double(df) / double(std::max<int64_t>(run, 1));
        const int64_t guess_f = (run * int64_t(i - s + 1) + int64_t(e - s) / 2) / int64_t(e - s);
        bent.add(0, zigzag64(df - guess_f));
        for (uint32_t c = 0; c < 4; ++c) {
          if (!track.quantization.coded(static_cast<int>(c))) continue;
          const auto line = [&](double v) {
            return double(before.codes[c]) + double(int64_t{last_key.codes[c]} - before.codes[c]) * v;
          };
          const double h = double(k[m].codes[c]) - line(um);
          const double shape = (um > 0.0 && um < 1.0) ? (u * (1.0 - u)) / (um * (1.0 - um)) : 0.0;
          bent.add(c + 1, zigzag64(int64_t{k[i].codes[c]} - std::llround(line(u) + h * shape)));
        }
      }
      out.sag += anchor_bits + sag_key.bits(coding.coded_mask, coding.negation_bits) +
                 bent.bits(coding.coded_mask, coding.negation_bits);
      // sag_masked: the inner keys' frames as a bit per frame between the
      // key before and the anchor (a key's index then a popcount), where no
      // two keys share a frame; else the frame residuals, behind 1 bit.
      const uint64_t frame_bits = kSegmentWidthBits * 2 + sag_key.field[0] + uint64_t{bent.keys} * bent.field[0];
      bool shared = false;
      for (size_t i = s; i < e; ++i) shared = shared || k[i].frame == k[i - 1].frame;
      const uint64_t mask_bits = uint64_t(std::max<int64_t>(span - 1, 0));
      out.sag_masked += anchor_bits + sag_key.bits(coding.coded_mask, coding.negation_bits) +
                        bent.bits(coding.coded_mask, coding.negation_bits) + 1 - (shared ? 0 : frame_bits - mask_bits);
    } else {
      out.sag_masked += anchor_bits + chord.bits(coding.coded_mask, coding.negation_bits);
      out.chord2 += anchor_bits + chord.bits(coding.coded_mask, coding.negation_bits);
      out.sag += anchor_bits + chord.bits(coding.coded_mask, coding.negation_bits);
    }
    out.ranged += anchor_bits + ranged.bits(coding.coded_mask, coding.negation_bits);
    out.chord += anchor_bits + chord.bits(coding.coded_mask, coding.negation_bits);
    out.delta += delta.bits(coding.coded_mask, coding.negation_bits);
    out.anchored += anchor_bits + anchored.bits(coding.coded_mask, coding.negation_bits);
    laid_out.start_bit.push_back(bisection.size_bits());
    laid_out.anchor_frame.push_back(k[e - 1].frame);
    write_bisection_segment(bisection, coding, std::span(k).subspan(s, e - s), k[s - 1]);
    laid_out.sag_start_bit.push_back(sag_segments.size_bits());
    write_sag_segment(sag_segments, coding, std::span(k).subspan(s, e - s), k[s - 1]);
  }
  out.bisection = bisection.size_bits();
  out.sag_written = sag_segments.size_bits();
  laid_out.sag_bytes = sag_segments.bytes();
  laid_out.coding = coding;
  laid_out.key_count = static_cast<uint32_t>(k.size());
  std::copy(k.begin(), k.begin() + kInitialKeysPerTrack, laid_out.initial);
  laid_out.bytes = bisection.bytes();
  laid_out.bytes.resize(laid_out.bytes.size() + 8, 0);
  return out;
}

}  // namespace ks
