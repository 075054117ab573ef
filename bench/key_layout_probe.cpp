// keystream-key-layout-probe: what the key stream of a clip would cost laid
// out another way, for choosing format v12's random-access layout (DESIGN
// §7, issue 41). It fits the clip as `compress` does, packs it with jump
// frames at auto, and counts, from the fitted keys, the bits of each track's
// stream keys (keys 3, 4, ...) in segments of kKeysPerSegment:
//
//   delta      format v11: each key the difference from the one before, in
//              widths fixed per segment (stream_key_layout.h); a seek needs
//              a jump frame and reads forward from it
//   anchored   the segment's first key absolute (track-wide widths), the
//              others differences as in v11: a seek starts at the anchor of
//              its segment, so the stream needs no jump frames
//   bisection  format v12's candidate (core/runtime/bisection_segment.h),
//              written by its writer: the segment's last key absolute, each
//              other key coded against the line between the two keys
//              bracketing it, the middle first: a key is reached through
//              at most four others
//   ranged     O(1): each field less the segment's least (absolute in its
//              head), in fixed widths
//   chord      O(1): the segment's last key absolute, each other key
//              against the line from the key before the segment (the
//              previous anchor) to it
//   chord2     the middle key against that line, the others against the
//              line of their half (two steps)
//   sag        O(1): the middle key against the line, the others against
//              the line bent by a parabola through the middle key
//
//   keystream-key-layout-probe CLIP[#ANIMATION] TOLERANCE_MM
//
// Bytes of all but bisection are estimates from the widths the keys need,
// bisection's are written; each counts the key data alone, next to
// the packed stream's own sections, so a layout's saving is read against the
// jump frames it makes unnecessary.
//
// Then it seeks at 4,000 random frames, checking every window against the
// fit: with the reference reader (keys decoded), with the lockstep
// kernel of bisection_lanes.h (records decoded, and time), and with the v11
// player (keys read, and time, in the same run).

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/sag_seeker.h"
#include "core/codec/bisection_segment_writer.h"
#include "core/codec/fit.h"
#include "core/codec/key_cost.h"
#include "core/codec/measure.h"
#include "core/codec/pack.h"
#include "core/codec/sag_segment_writer.h"
#include "core/io/import.h"
#include "core/runtime/bisection_lanes.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_key_layout.h"
#include "core/runtime/stream_view.h"

namespace {

using namespace ks;

uint64_t zigzag64(int64_t v) { return v >= 0 ? uint64_t(v) << 1 : (uint64_t(-(v + 1)) << 1) | 1u; }

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

// A track laid out in bisection segments, for counting what a seek decodes:
// its initial keys, and per segment where it starts and its anchor's frame
// (what StreamView::open would keep beside its segment table).
struct BisectionTrack {
  BisectionTrackCoding coding;
  BisectionKey initial[kInitialKeysPerTrack];
  uint32_t key_count = 0;
  std::vector<uint64_t> start_bit;
  std::vector<uint32_t> anchor_frame;
  std::vector<uint8_t> bytes;
  // The same keys as sag segments (sag_segment.h), by its writer.
  std::vector<uint64_t> sag_start_bit;
  std::vector<uint8_t> sag_bytes;
  uint64_t sag_bits = 0;
};

struct LayoutBits {
  uint64_t delta = 0, anchored = 0, bisection = 0, ranged = 0, chord = 0, chord2 = 0, sag = 0, sag_written = 0;
};

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
    Widths delta, anchored;
    for (size_t i = s; i < e; ++i) {
      ++delta.keys;
      delta.add(0, frame_field(i));
      for (uint32_t c = 0; c < 4; ++c) {
        if (track.quantization.coded(static_cast<int>(c))) delta.add(c + 1, code_field(i, c));
      }
      if (i == s) continue;  // the anchored layout's first key is its anchor
      ++anchored.keys;
      anchored.add(0, frame_field(i));
      for (uint32_t c = 0; c < 4; ++c) {
        if (track.quantization.coded(static_cast<int>(c))) anchored.add(c + 1, code_field(i, c));
      }
    }
    // O(1) layouts: every field of a key at a known place, found without
    // reading another key. ranged: each field less the segment's least
    // (stored absolute in its head); chord: each field less the line from
    // the key before the segment (the previous head's anchor) to its last.
    Widths ranged, chord;
    const FittedKey& before = track.keys[s - 1];
    const FittedKey& last_key = track.keys[e - 1];
    const int64_t span = int64_t{last_key.frame} - before.frame;
    for (size_t i = s; i < e; ++i) {
      ++ranged.keys;
      const int64_t df = int64_t{k[i].frame} - before.frame;
      ranged.add(0, uint64_t(df));
      const bool chord_key = i + 1 < e;  // the last is the head's anchor
      chord.keys += chord_key ? 1 : 0;
      const int64_t frame_guess = (span * int64_t(i - s + 1) + int64_t(e - s) / 2) / int64_t(e - s);
      if (chord_key) chord.add(0, zigzag64(df - frame_guess));
      for (uint32_t c = 0; c < 4; ++c) {
        if (!track.quantization.coded(static_cast<int>(c))) continue;
        int64_t least = k[s].codes[c];
        for (size_t j = s; j < e; ++j) least = std::min<int64_t>(least, k[j].codes[c]);
        ranged.add(c + 1, uint64_t(int64_t{k[i].codes[c]} - least));
        const int64_t rise = int64_t{last_key.codes[c]} - before.codes[c];
        const double guess = double(before.codes[c]) + double(rise) * double(df) / double(std::max<int64_t>(span, 1));
        if (chord_key) chord.add(c + 1, zigzag64(int64_t{k[i].codes[c]} - std::llround(guess)));
      }
    }
    // chord2: the middle key against the chord, the others against the
    // chord of their half (two dependent steps, still O(1)).
    const auto against = [&](size_t i, const FittedKey& left, const FittedKey& right, size_t left_index,
                             size_t right_index, Widths& w) {
      ++w.keys;
      const int64_t run = int64_t{right.frame} - left.frame;
      const int64_t df = int64_t{k[i].frame} - left.frame;
      const int64_t guess_f = (run * int64_t(i - left_index) + int64_t(right_index - left_index) / 2) /
                              int64_t(right_index - left_index);
      w.add(0, zigzag64(df - guess_f));
      for (uint32_t c = 0; c < 4; ++c) {
        if (!track.quantization.coded(static_cast<int>(c))) continue;
        const double guess = double(left.codes[c]) + double(int64_t{right.codes[c]} - left.codes[c]) * double(df) /
                                                         double(std::max<int64_t>(run, 1));
        w.add(c + 1, zigzag64(int64_t{k[i].codes[c]} - std::llround(guess)));
      }
    };
    Widths middle, halves;
    if (e - s >= 3) {
      const size_t m = s + (e - s - 1) / 2;
      against(m, before, last_key, s - 1, e - 1, middle);
      for (size_t i = s; i < m; ++i) against(i, before, track.keys[m], s - 1, m, halves);
      for (size_t i = m + 1; i + 1 < e; ++i) against(i, track.keys[m], last_key, m, e - 1, halves);
      out.chord2 += anchor_bits + middle.bits(coding.coded_mask, coding.negation_bits) +
                    halves.bits(coding.coded_mask, coding.negation_bits);
      // sag: one step: the chord bent by a parabola through the middle key.
      Widths sag_key, bent;
      against(m, before, last_key, s - 1, e - 1, sag_key);
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
    } else {
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
  laid_out.sag_bits = sag_segments.size_bits();
  laid_out.coding = coding;
  laid_out.key_count = static_cast<uint32_t>(k.size());
  std::copy(k.begin(), k.begin() + kInitialKeysPerTrack, laid_out.initial);
  laid_out.bytes = bisection.bytes();
  laid_out.bytes.resize(laid_out.bytes.size() + 8, 0);
  return out;
}

// One segment of a track as a seek decodes it: its head and the keys decoded so far.
struct LoadedSegment {
  uint32_t index = ~0u;
  uint32_t count = 0;
  BisectionSegmentHead head;
  BisectionKey key[kKeysPerSegment + 1];
  uint32_t known = 0;  // bit p: key[p] decoded
};

class BisectionSeeker {
 public:
  explicit BisectionSeeker(const BisectionTrack& track) : m_track(track) {}

  // What the seeks so far read: segment heads (an anchor and the widths)
  // and records, each record one key.
  uint64_t heads_read = 0;
  uint64_t records_read = 0;

  // The keys a player's window holds at `frame`: keys i-1..i+2, i the last
  // key at or before it (clamped to the track's keys).
  void window(uint32_t frame, BisectionKey (&out)[kWindowSize]) {
    for (LoadedSegment& s : m_loaded) s.index = ~0u;
    const std::vector<uint32_t>& anchors = m_track.anchor_frame;
    const uint32_t j = static_cast<uint32_t>(std::upper_bound(anchors.begin(), anchors.end(), frame) - anchors.begin());
    int64_t last = m_track.key_count - 1;
    if (j < anchors.size()) {
      LoadedSegment& s = load(j);
      BitReader reader(m_track.bytes);
      const uint32_t p = find_in_bisection_segment(reader, s.head, s.count, s.key[0], frame, s.key);
      if (s.head.anchor.frame > frame) {
        for (uint32_t left = 0, right = s.count; right - left >= 2;) {  // the descent's keys are known
          const uint32_t q = (left + right) / 2;
          s.known |= 1u << q;
          ++records_read;
          if (s.key[q].frame <= frame) left = q; else right = q;
        }
      }
      last = int64_t{kInitialKeysPerTrack} + int64_t{j} * kKeysPerSegment - 1 + p;
      while (last > 0 && last < int64_t{kInitialKeysPerTrack} && m_track.initial[last].frame > frame) --last;
    }
    for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
      const int64_t k = std::clamp<int64_t>(last - 1 + w, 0, m_track.key_count - 1);
      out[w] = key(static_cast<uint32_t>(k));
    }
  }

 private:
  LoadedSegment& load(uint32_t index) {
    LoadedSegment* free = &m_loaded[0];
    for (LoadedSegment& s : m_loaded) {
      if (s.index == index) return s;
      if (s.index == ~0u) free = &s;
    }
    LoadedSegment& s = *free;
    s.index = index;
    s.count = std::min<uint32_t>(kKeysPerSegment, m_track.key_count - kInitialKeysPerTrack - index * kKeysPerSegment);
    BitReader reader(m_track.bytes, m_track.start_bit[index]);
    s.head = read_bisection_head(reader, m_track.coding, s.count);
    ++heads_read;
    s.key[s.count] = s.head.anchor;
    s.key[0] = index == 0 ? m_track.initial[kInitialKeysPerTrack - 1] : previous_anchor(index);
    s.known = 1u | (1u << s.count);
    return s;
  }
  BisectionKey previous_anchor(uint32_t index) {
    ++heads_read;
    BitReader reader(m_track.bytes, m_track.start_bit[index - 1]);
    const uint32_t count = kKeysPerSegment;  // every segment but the last is whole
    return read_bisection_head(reader, m_track.coding, count).anchor;
  }
  BisectionKey key(uint32_t k) {
    if (k < kInitialKeysPerTrack) return m_track.initial[k];
    const uint32_t index = (k - kInitialKeysPerTrack) / kKeysPerSegment;
    const uint32_t position = k - kInitialKeysPerTrack - index * kKeysPerSegment + 1;
    LoadedSegment& s = load(index);
    const BisectionTree& tree = kBisectionTrees[s.count];
    BitReader reader(m_track.bytes);
    for (uint32_t left = 0, right = s.count; (s.known >> position & 1u) == 0;) {
      const uint32_t middle = (left + right) / 2;
      if ((s.known >> middle & 1u) == 0) {
        s.key[middle] = read_bisection_record(reader, s.head, tree, tree.record_of[middle], s.key[left], s.key[right]);
        s.known |= 1u << middle;
        ++records_read;
      }
      if (position < middle) right = middle; else left = middle;
    }
    return s.key[position];
  }

  const BisectionTrack& m_track;
  LoadedSegment m_loaded[3];
};

// The seek of format v12 as a player would take it, eight tracks a block
// (bisection_lanes.h): each lane finds its segment by its anchors' frames,
// descends to the frame, then to the window's neighbours in the segment
// (keys i-1 and i+2), one of which its last bracket holds. Neighbours in
// the next or previous segment are counted, not decoded: this measures the
// lockstep descent.
class LaneSeeker {
 public:
  explicit LaneSeeker(const std::vector<BisectionTrack>& tracks) {
    for (const BisectionTrack& t : tracks) {
      Track lane;
      lane.track = &t;
      const uint64_t base = uint64_t{m_bytes.size()} * 8;
      m_bytes.insert(m_bytes.end(), t.bytes.begin(), t.bytes.end() - 8);
      for (size_t j = 0; j < t.start_bit.size(); ++j) {
        const uint32_t count =
            std::min<uint32_t>(kKeysPerSegment, t.key_count - kInitialKeysPerTrack - uint32_t(j) * kKeysPerSegment);
        lane.count.push_back(count);
        lane.start_bit.push_back(base + t.start_bit[j]);
      }
      m_tracks.push_back(std::move(lane));
    }
    m_bytes.resize(m_bytes.size() + 8, 0);
    for (Track& lane : m_tracks) {
      for (size_t j = 0; j < lane.count.size(); ++j) {
        BitReader reader(m_bytes, lane.start_bit[j]);
        lane.heads.push_back(read_bisection_head(reader, lane.track->coding, lane.count[j]));
      }
    }
  }

  uint64_t records = 0;
  uint64_t outside = 0;  // window keys in a neighbouring segment (not decoded here)

  // Each track's window at `frame` where it lies in one segment: `out`
  // [track][w] (key index last - 1 + w), `found` bit w set where decoded.
  [[gnu::noinline]] void seek(uint32_t frame, std::vector<std::array<BisectionKey, kWindowSize>>& out,
                              std::vector<uint32_t>& found) {
    set_lanes(frame);
    descend(out, found);
  }

  // Each lane at the segment `frame` falls in (the player would do this
  // from its segment table, eight lanes at a time; here, from parsed heads).
  [[gnu::noinline]] void set_lanes(uint32_t frame) {
    const size_t tracks = m_tracks.size();
    const size_t blocks = (tracks + kLanesPerBlock - 1) / kLanesPerBlock;
    m_lanes.resize(blocks);
    m_at.resize(blocks);
    m_target.assign(blocks * kLanesPerBlock, frame);
    m_segment.resize(blocks * kLanesPerBlock);
    for (size_t l = 0; l < blocks * kLanesPerBlock; ++l) {
      BisectionLanes& lanes = m_lanes[l / kLanesPerBlock];
      const uint32_t lane = static_cast<uint32_t>(l % kLanesPerBlock);
      if (l >= tracks) {
        clear_bisection_lane(lanes, lane);
        continue;
      }
      const Track& t = m_tracks[l];
      const std::vector<uint32_t>& anchors = t.track->anchor_frame;
      uint32_t j = static_cast<uint32_t>(std::upper_bound(anchors.begin(), anchors.end(), frame) - anchors.begin());
      if (j == anchors.size()) --j;  // at or after the last anchor: the last segment's end
      m_segment[l] = j;
      const BisectionKey& before = j == 0 ? t.track->initial[kInitialKeysPerTrack - 1] : t.heads[j - 1].anchor;
      set_bisection_lane(lanes, lane, t.heads[j], t.count[j], before);
    }
  }

  // The descents from the lanes set_lanes set, and the windows they give.
  [[gnu::noinline]] void descend(std::vector<std::array<BisectionKey, kWindowSize>>& out,
                                 std::vector<uint32_t>& found) {
    const size_t tracks = m_tracks.size();
    const size_t blocks = m_lanes.size();
    records += blocks_descend(m_target, BisectionTarget::kFrame, m_at);
    // The neighbours, positions p - 1 and p + 2, where they lie in the
    // segment: the descent's last bracket holds one of them; a descent to
    // the other decodes the rest (a second one where a short last segment
    // leaves both).
    m_needs[0].assign(blocks, 0);
    m_needs[1].assign(blocks, 0);
    m_pass_target[0].assign(blocks * kLanesPerBlock, 0);
    m_pass_target[1].assign(blocks * kLanesPerBlock, 0);
    for (size_t l = 0; l < tracks; ++l) {
      const BisectionBracket& at = m_at[l / kLanesPerBlock];
      const uint32_t lane = static_cast<uint32_t>(l % kLanesPerBlock);
      const uint32_t p = at.left_position[lane], count = m_tracks[l].count[m_segment[l]];
      outside += (p == 0 ? 1 : 0) + (p + 2 > count ? 1 : 0) + (p + 1 > count ? 1 : 0);
      const bool has_before = p == 0 || at.outer_left_position[lane] + 1 == p;
      const bool has_after = p + 2 > count || at.outer_right_position[lane] == p + 2;
      uint32_t pass = 0;
      if (!has_before) m_pass_target[pass][l] = p - 1, m_needs[pass++][l / kLanesPerBlock] |= 1u << lane;
      if (!has_after) m_pass_target[pass][l] = p + 2, m_needs[pass][l / kLanesPerBlock] |= 1u << lane;
    }
    for (uint32_t pass = 0; pass < 2; ++pass) {
      bool any = false;
      m_counts.assign(blocks * kLanesPerBlock, 0);
      for (size_t k = 0; k < blocks; ++k) {
        for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
          m_counts[k * kLanesPerBlock + lane] = m_lanes[k].count[lane];
          if (((m_needs[pass][k] >> lane) & 1u) == 0) m_lanes[k].count[lane] = 0;
        }
        any = any || m_needs[pass][k] != 0;
      }
      if (any) {
        m_other[pass].resize(blocks);
        records += blocks_descend(m_pass_target[pass], BisectionTarget::kPosition, m_other[pass]);
      }
      for (size_t k = 0; k < blocks; ++k) {
        for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) m_lanes[k].count[lane] = m_counts[k * kLanesPerBlock + lane];
      }
    }
    for (size_t l = 0; l < tracks; ++l) {
      const size_t k = l / kLanesPerBlock;
      const uint32_t lane = static_cast<uint32_t>(l % kLanesPerBlock);
      const BisectionBracket& at = m_at[k];
      const uint32_t p = at.left_position[lane], count = m_tracks[l].count[m_segment[l]];
      // The key at position q: from a further descent, else the bracket's.
      const auto outer = [&](uint32_t q, const BisectionLaneKeys& bracketed) {
        for (uint32_t pass = 0; pass < 2; ++pass) {
          if (((m_needs[pass][k] >> lane) & 1u) != 0 && m_pass_target[pass][l] == q) return m_other[pass][k].left.key(lane);
        }
        return bracketed.key(lane);
      };
      std::array<BisectionKey, kWindowSize>& w = out[l];
      uint32_t& f = found[l];
      f = 0;
      if (p >= 1) w[0] = outer(p - 1, at.outer_left), f |= 1;
      w[1] = at.left.key(lane), f |= 2;
      if (p + 1 <= count) w[2] = at.right.key(lane), f |= 4;
      if (p + 2 <= count) w[3] = outer(p + 2, at.outer_right), f |= 8;
    }
  }

  // Whether the blocks descend together (descend_bisection_blocks) or one
  // after the other, for timing the two.
  bool interleaved = true;

  // The stream key index (0-based over the track's keys) of position p of
  // the segment `frame` falls in, for checking.
  int64_t key_index(size_t track, uint32_t frame, uint32_t p) const {
    const std::vector<uint32_t>& anchors = m_tracks[track].track->anchor_frame;
    uint32_t j = static_cast<uint32_t>(std::upper_bound(anchors.begin(), anchors.end(), frame) - anchors.begin());
    if (j == anchors.size()) --j;
    return int64_t{kInitialKeysPerTrack} + int64_t{j} * kKeysPerSegment - 1 + p;
  }

 private:
  struct Track {
    const BisectionTrack* track = nullptr;
    std::vector<uint32_t> count;
    std::vector<uint64_t> start_bit;
    std::vector<BisectionSegmentHead> heads;
  };
  std::vector<Track> m_tracks;
  std::vector<uint8_t> m_bytes;
  // Per seek, kept to reuse their memory: the blocks' lanes and results,
  // each lane's target, segment and count, and which lanes a neighbour
  // descent takes (bit per lane, per block) with its targets.
  std::vector<BisectionLanes> m_lanes;
  std::vector<BisectionBracket> m_at, m_other[2];
  std::vector<uint32_t> m_target, m_segment, m_needs[2], m_pass_target[2];
  std::vector<int32_t> m_counts;

  uint32_t blocks_descend(const std::vector<uint32_t>& targets, BisectionTarget kind,
                          std::vector<BisectionBracket>& out) {
    if (interleaved) return descend_bisection_blocks(m_lanes, m_bytes, targets, kind, out);
    uint32_t n = 0;
    for (size_t k = 0; k < m_lanes.size(); ++k) {
      n += descend_bisection_blocks(std::span(m_lanes).subspan(k, 1), m_bytes,
                                    std::span(targets).subspan(k * kLanesPerBlock, kLanesPerBlock), kind,
                                    std::span(out).subspan(k, 1));
    }
    return n;
  }
};

int fail(const std::string& why) {
  std::fprintf(stderr, "keystream-key-layout-probe: %s\n", why.c_str());
  return 1;
}

// Random frames (a fixed seed), as the sampling probe's seeks.
std::vector<uint32_t> random_frames(uint32_t frame_count, size_t n) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> frame(0, frame_count - 1);
  std::vector<uint32_t> frames(n);
  for (uint32_t& f : frames) f = frame(rng);
  return frames;
}

// Checks the bisection windows against the fitted keys at random frames,
// and counts what they decode against what the v11 player reads at the same
// frames. (Instructions and time await the player's reader: this one is a
// plain reference, a few times slower than a seek of v11.)
int count_seeks(const FittedClip& clip, const StreamView& view, const std::vector<BisectionTrack>& tracks) {
  if (tracks.empty()) {
    std::printf("\nno track has more than %u keys: nothing to seek through\n", kInitialKeysPerTrack);
    return 0;
  }
  const std::vector<uint32_t> frames = random_frames(clip.frame_count, 4000);
  std::vector<BisectionSeeker> seekers;
  for (const BisectionTrack& t : tracks) seekers.emplace_back(t);
  size_t checked = 0;
  for (size_t t = 0, streamed = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.keys.size() <= kInitialKeysPerTrack) continue;
    BisectionSeeker& seeker = seekers[streamed++];
    for (const uint32_t frame : frames) {
      int64_t last = 0;
      for (size_t k = 0; k < track.keys.size(); ++k) {
        if (track.keys[k].frame <= frame) last = static_cast<int64_t>(k);
      }
      BisectionKey window[kWindowSize];
      seeker.window(frame, window);
      for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
        const FittedKey& key = track.keys[std::clamp<int64_t>(last - 1 + w, 0, int64_t(track.keys.size()) - 1)];
        if (window[w].frame != key.frame || !std::equal(key.codes, key.codes + 4, window[w].codes)) {
          return fail("bisection window differs from the fitted keys at frame " + std::to_string(frame));
        }
        ++checked;
      }
    }
  }
  uint64_t heads = 0, records = 0;
  for (const BisectionSeeker& seeker : seekers) heads += seeker.heads_read, records += seeker.records_read;
  // The lockstep seek at the same frames: its keys against the fit, then its counts.
  LaneSeeker lanes(tracks);
  std::vector<std::array<BisectionKey, kWindowSize>> windows(tracks.size());
  std::vector<uint32_t> found(tracks.size());
  size_t lane_checked = 0;
  for (const uint32_t frame : frames) {
    lanes.seek(frame, windows, found);
    for (size_t t = 0, streamed = 0; t < clip.tracks.size(); ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.keys.size() <= kInitialKeysPerTrack) continue;
      int64_t last = 0;
      for (size_t k = 0; k < track.keys.size(); ++k) {
        if (track.keys[k].frame <= frame) last = static_cast<int64_t>(k);
      }
      // A window that starts among keys 0..2 (which a player holds) is not the descent's.
      for (uint32_t w = 0; w < kWindowSize && last >= int64_t{kInitialKeysPerTrack} - 1; ++w) {
        if (((found[streamed] >> w) & 1u) == 0) continue;
        const FittedKey& key = track.keys[static_cast<size_t>(std::max<int64_t>(0, last - 1 + w))];
        if (windows[streamed][w].frame != key.frame || !std::equal(key.codes, key.codes + 4, windows[streamed][w].codes)) {
          return fail("lockstep window differs from the fitted keys at frame " + std::to_string(frame));
        }
        ++lane_checked;
      }
      ++streamed;
    }
  }
  // The v11 player at the same frames: keys read and jump frames restored.
  Player player(view);
  std::vector<Transform> pose(view.bone_count());
  player.sample_frame(static_cast<float>(clip.frame_count - 1), pose);  // not at frame 0: the first seek is one too
  const PlayerCounters before = player.counters();
  for (const uint32_t frame : frames) player.sample_frame(static_cast<float>(frame), pose);
  const PlayerCounters after = player.counters();
  const double n = static_cast<double>(frames.size());
  std::printf("\nwindows of %zu streamed tracks at %zu random frames: %zu keys checked against the fit\n",
              tracks.size(), frames.size(), checked);
  std::printf("| per random seek, every streamed track | bisection | v11, jump frames at auto (%.3f s) |\n|---|---|---|\n",
              view.jump_interval_frames() / view.sample_rate_hz());
  std::printf("| keys decoded | %.1f records + %.1f anchors | %.1f keys read |\n", double(records) / n,
              double(heads) / n, double(after.keys_read - before.keys_read) / n);
  std::printf("| per track | %.2f + %.2f | %.2f |\n", double(records) / n / double(tracks.size()),
              double(heads) / n / double(tracks.size()), double(after.keys_read - before.keys_read) / n / double(tracks.size()));
  const uint64_t lane_records = lanes.records, lane_outside = lanes.outside;  // before the timed passes add to them
  // Time, same run: the lockstep windows alone against v11's whole seek
  // (restore, read forward, rebuild, evaluate) at the same frames, each
  // the minimum of nine passes.
  const auto fastest = [&](auto&& pass) {
    double best = 1e300;
    for (int repetition = 0; repetition < 9; ++repetition) {
      const auto start = std::chrono::steady_clock::now();
      pass();
      const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count() / n);
    }
    return best;
  };
  const double lockstep_ns = fastest([&] {
    for (const uint32_t frame : frames) lanes.seek(frame, windows, found);
  });
  lanes.interleaved = false;
  const double one_by_one_ns = fastest([&] {
    for (const uint32_t frame : frames) lanes.seek(frame, windows, found);
  });
  lanes.interleaved = true;
  const double set_ns = fastest([&] {
    for (const uint32_t frame : frames) lanes.set_lanes(frame);
  });
  const double v11_ns = fastest([&] {
    for (const uint32_t frame : frames) player.sample_frame(static_cast<float>(frame), pose);
  });
  // Every window from a key cache that holds every key (a whole seek:
  // lanes set, evaluated), the bound a one-step layout aims at.
  Player cached(view, KeyCache::bytes_for(view));
  cached.sample_frame(static_cast<float>(clip.frame_count - 1), pose);
  const double cached_ns = fastest([&] {
    for (const uint32_t frame : frames) cached.sample_frame(static_cast<float>(frame), pose);
  });
  // Sag segments: every track's window keys, the scalar reader (keys alone:
  // no lane set, nothing evaluated), checked against the fit first.
  std::vector<SagTrack> sag_tracks(tracks.size());
  std::vector<uint8_t> sag_bytes;
  for (size_t t = 0; t < tracks.size(); ++t) {
    SagTrack& s = sag_tracks[t];
    s.coding = tracks[t].coding;
    std::copy(tracks[t].initial, tracks[t].initial + kInitialKeysPerTrack, s.initial);
    s.key_count = tracks[t].key_count;
    s.anchor_frame = tracks[t].anchor_frame;
    const uint64_t base = uint64_t{sag_bytes.size()} * 8;
    for (const uint64_t bit : tracks[t].sag_start_bit) s.start_bit.push_back(base + bit);
    sag_bytes.insert(sag_bytes.end(), tracks[t].sag_bytes.begin(), tracks[t].sag_bytes.end());
  }
  sag_bytes.resize(sag_bytes.size() + 8, 0);
  SagSeeker sag(sag_tracks, sag_bytes);
  size_t sag_checked = 0;
  for (const uint32_t frame : frames) {
    for (size_t t = 0, streamed = 0; t < clip.tracks.size(); ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.keys.size() <= kInitialKeysPerTrack) continue;
      BisectionKey window[kWindowSize];
      sag.window(streamed++, frame, window);
      int64_t last = 0;
      for (size_t k = 0; k < track.keys.size(); ++k) {
        if (track.keys[k].frame <= frame) last = static_cast<int64_t>(k);
      }
      for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
        const FittedKey& key = track.keys[std::clamp<int64_t>(last - 1 + w, 0, int64_t(track.keys.size()) - 1)];
        if (window[w].frame != key.frame || !std::equal(key.codes, key.codes + 4, window[w].codes)) {
          return fail("sag window differs from the fitted keys at frame " + std::to_string(frame));
        }
        ++sag_checked;
      }
    }
  }
  const double sag_ns = fastest([&] {
    BisectionKey window[kWindowSize];
    for (const uint32_t frame : frames) {
      for (size_t t = 0; t < sag_tracks.size(); ++t) sag.window(t, frame, window);
      asm volatile("" : : "r"(window) : "memory");
    }
  });
  std::printf("\nlockstep seek (%s kernels): %zu window keys checked; %.1f records decoded per seek, %.2f a track;"
              " window keys in a neighbouring segment %.2f a track (not decoded)\n",
              to_string(simd_level()), lane_checked, double(lane_records) / n,
              double(lane_records) / n / double(tracks.size()), double(lane_outside) / n / double(tracks.size()));
  std::printf("ns per seek (min of 9): lockstep windows %.0f (blocks one by one: %.0f), of which setting the lanes"
              " %.0f; v11 whole seek %.0f\n",
              lockstep_ns, one_by_one_ns, set_ns, v11_ns);
  std::printf("sag windows (scalar reader, %zu keys checked): %.0f ns per seek; whole seek from a full key cache %.0f"
              " (%.3f of v11's)\n",
              sag_checked, sag_ns, cached_ns, cached_ns / v11_ns);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: keystream-key-layout-probe CLIP[#ANIMATION] TOLERANCE_MM");
  std::string path = argv[1];
  ImportSettings import_settings;
  if (const size_t hash = path.find('#'); hash != std::string::npos) {
    import_settings.animation_name = path.substr(hash + 1);
    path.resize(hash);
  }
  char* end = nullptr;
  const double tolerance_mm = std::strtod(argv[2], &end);
  if (end == argv[2] || *end != '\0' || !(tolerance_mm > 0.0) || tolerance_mm > 1e6) {
    return fail(std::string("tolerance '") + argv[2] + "' is not a positive number of millimetres");
  }
  Result<ImportedClip> imported = import_clip(path, import_settings);
  if (!imported) return fail(imported.error());
  FitSettings fit_settings;
  fit_settings.tolerance_m = static_cast<float>(tolerance_mm * 1e-3);
  Result<FittedClip> fitted = fit_clip(imported.value().skeleton, imported.value().clip, fit_settings, 2);
  if (!fitted) return fail(fitted.error());
  Result<std::vector<uint8_t>> bytes = pack(fitted.value(), tool_pack_settings());
  if (!bytes) return fail(bytes.error());
  Result<StreamView> view = StreamView::open(bytes.value(), path.c_str());
  if (!view) return fail(view.error());
  const StreamSizes sizes = stream_sizes(view.value());

  LayoutBits total;
  std::vector<BisectionTrack> laid_out;
  for (const FittedTrack& track : fitted.value().tracks) {
    BisectionTrack bisection_track;
    const LayoutBits t = track_bits(track, fitted.value().frame_count, bisection_track);
    if (bisection_track.key_count > 0) laid_out.push_back(std::move(bisection_track));
    total.delta += t.delta;
    total.anchored += t.anchored;
    total.bisection += t.bisection;
    total.ranged += t.ranged;
    total.chord += t.chord;
    total.chord2 += t.chord2;
    total.sag += t.sag;
    total.sag_written += t.sag_written;
  }
  const auto bytes_of = [](uint64_t bits) { return static_cast<long long>((bits + 7) / 8); };
  const long long stream = static_cast<long long>(sizes.bytes_without_metadata());
  const long long jump = static_cast<long long>(sizes.jump_frame_bytes);
  const long long delta = bytes_of(total.delta);
  // The stream as it would be: the same but for the stream keys' layout,
  // and without jump frames where the layout has anchors.
  const auto projected = [&](uint64_t bits) { return stream - jump - delta + bytes_of(bits); };
  std::printf("%s at %g mm: stream less metadata %lld bytes, jump frames %lld\n", argv[1], tolerance_mm, stream, jump);
  std::printf("| layout | stream keys, bytes | stream less metadata | / v11 |\n|---|---|---|---|\n");
  // The estimate against the packed stream's key widths and stream keys.
  const long long packed = static_cast<long long>(view.value().key_widths().size() + view.value().key_stream_bytes());
  std::printf("| delta + jump frames (v11; as packed: %lld) | %lld | %lld | 1.000 |\n", packed, delta, stream);
  const std::pair<const char*, uint64_t> rows[] = {{"anchored", total.anchored}, {"bisection", total.bisection}, {"ranged", total.ranged}, {"chord", total.chord}, {"chord2", total.chord2}, {"sag", total.sag}, {"sag (written)", total.sag_written}};
  for (const auto& [name, bits] : rows) {
    std::printf("| %s | %lld | %lld | %.3f |\n", name, bytes_of(bits), projected(bits),
                double(projected(bits)) / double(stream));
  }
  return count_seeks(fitted.value(), view.value(), laid_out);
}
