#pragma once
// Seeks through a track's bisection segments (core/runtime/bisection_segment.h)
// for keystream-key-layout-probe: BisectionSeeker with the reference reader,
// keeping every key it decodes; LaneSeeker eight tracks at a time with the
// lockstep kernel of bisection_lanes.h.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "bench/key_layouts.h"
#include "keystream/runtime/bisection_lanes.h"
#include "keystream/runtime/bisection_segment.h"

namespace ks {

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
          if (s.key[q].frame <= frame)
            left = q;
          else
            right = q;
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
      if (position < middle)
        right = middle;
      else
        left = middle;
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
        for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane)
          m_lanes[k].count[lane] = m_counts[k * kLanesPerBlock + lane];
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
          if (((m_needs[pass][k] >> lane) & 1u) != 0 && m_pass_target[pass][l] == q)
            return m_other[pass][k].left.key(lane);
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

}  // namespace ks
