// keystream-track-major-probe: an experiment for issue 15, run by hand. It
// measures what sequential play would cost if each track's stream keys were
// stored together (track-major) instead of interleaved by need frame, so
// that eight tracks' next keys are read at once with AVX2 gathers straight
// into their lanes, with no need calendar, window copies or per-key staging.
//
// The keys are the very bits of format version 5 (the same fixed-width
// fields of the same segments), only reordered: the probe fits and packs the
// clip as the tools do, re-lays each track's stream keys end to end, plays
// every frame with the track-major reader and checks each pose against the
// Player's bit for bit. Instructions per pose, against the Player and the
// baseline on the same workload (keystream-sampling-probe ... seq auto 2):
//
//   valgrind --tool=callgrind --toggle-collect='TrackMajorPlayer::sample_frame*'
//            build/bench/keystream-track-major-probe CLIP[#ANIMATION] [LOOPS]
//
// Outside valgrind it also prints ns per pose, min and median of 9
// repetitions, for it, the Player and the baseline (BinarySearchSampler),
// interleaved in one run, and the ratios of the medians to the baseline's.

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/codec/binary_search_sampler.h"
#include "core/codec/bit_writer.h"
#include "core/codec/fit.h"
#include "core/codec/key_cost.h"
#include "core/codec/pack.h"
#include "core/io/import.h"
#include "core/runtime/player.h"
#include "core/runtime/segment_lanes.h"
#include "core/runtime/stream_key_layout.h"
#include "core/runtime/stream_view.h"

namespace {

using namespace ks;

constexpr uint32_t kFields = kKeyFields + 1;  // frame, four components, the "negated" bit

// The read state of eight tracks of one kind, structure-of-arrays: where
// each track's next key starts, its newest key, and its segment's layout as
// 64-bit shifts and masks (the width AVX2's variable shifts take).
struct alignas(32) LaneCursors {
  uint64_t bit[kLanesPerBlock] = {};
  uint64_t shift[kFields][kLanesPerBlock] = {};
  uint64_t mask[kFields][kLanesPerBlock] = {};
  int32_t codes[4][kLanesPerBlock] = {};
  int32_t frame[kLanesPerBlock] = {};       // the newest key's frame
  int32_t need[kLanesPerBlock] = {};        // the frame the next key is needed at (the key before the newest)
  int32_t keys_left[kLanesPerBlock] = {};   // keys not read yet (0 for padding lanes)
  uint64_t key_bits[kLanesPerBlock] = {};
  int32_t frame_delta_min[kLanesPerBlock] = {};
  uint32_t keys_read[kLanesPerBlock] = {};
  uint32_t segment_end[kLanesPerBlock] = {};  // the key that opens the next segment
  uint32_t track[kLanesPerBlock] = {};
  bool wide = false;  // some lane's key is wider than one 57-bit load: read field by field
};

class TrackMajorPlayer {
 public:
  TrackMajorPlayer(const StreamView& stream, const FittedClip& clip) : m_stream(stream), m_clip(clip) {
    const std::span<const StreamTrack> tracks = stream.tracks();
    m_constant_pose.resize(stream.bone_count());
    std::vector<uint32_t> rotation_tracks, vec3_tracks;
    for (uint32_t t = 0; t < tracks.size(); ++t) {
      const StreamTrack& track = tracks[t];
      if (track.coding == TrackCoding::kAnimated) {
        (track.kind == TrackKind::kRotation ? rotation_tracks : vec3_tracks).push_back(t);
        continue;
      }
      Transform& pose = m_constant_pose[track.bone];
      const float* v = track.constant;
      if (track.kind == TrackKind::kTranslation) pose.translation = {v[0], v[1], v[2]};
      if (track.kind == TrackKind::kRotation) pose.rotation = {v[0], v[1], v[2], v[3]};
      if (track.kind == TrackKind::kScale) pose.scale = {v[0], v[1], v[2]};
    }
    // Each streamed track's keys 3.. end to end, exactly as format 5 codes them.
    BitWriter data;
    std::vector<uint64_t> start_bit(tracks.size(), 0);
    for (uint32_t t = 0; t < tracks.size(); ++t) {
      const StreamTrack& track = tracks[t];
      if (track.coding != TrackCoding::kAnimated || track.key_count <= kInitialKeysPerTrack) continue;
      start_bit[t] = data.size_bits();
      const FittedTrack& fitted = clip.tracks[t];
      for (uint32_t k = kInitialKeysPerTrack; k < track.key_count; ++k) {
        const StreamKeyLayout layout = layout_of(track, k);
        const FittedKey& key = fitted.keys[k];
        const FittedKey& before = fitted.keys[k - 1];
        data.write(key.frame - before.frame - track.key_coding.frame_delta_min, std::bit_width(layout.mask[0]));
        for (int c = 0; c < 4; ++c) {
          data.write(zigzag(key.codes[c] - before.codes[c]), std::bit_width(layout.mask[c + 1]));
        }
        if (layout.negation_mask != 0) data.write(is_negated(fitted, key) ? 1 : 0, 1);
      }
    }
    m_data = data.bytes();
    m_data.resize(m_data.size() + 16, 0);  // a gather of the last key may load past it

    m_start_bit = std::move(start_bit);
    m_rotation_tracks = std::move(rotation_tracks);
    m_vec3_tracks = std::move(vec3_tracks);
    m_rotation_lanes.resize((m_rotation_tracks.size() + kLanesPerBlock - 1) / kLanesPerBlock);
    m_vec3_lanes.resize((m_vec3_tracks.size() + kLanesPerBlock - 1) / kLanesPerBlock);
    m_rotation_cursors.resize(m_rotation_lanes.size());
    m_vec3_cursors.resize(m_vec3_lanes.size());
    restart();
  }

  /// Back to frame 0, as Player::restart().
  void restart() {
    clear_lanes(m_rotation_lanes);
    clear_lanes(m_vec3_lanes);
    std::fill(m_rotation_cursors.begin(), m_rotation_cursors.end(), LaneCursors{});
    std::fill(m_vec3_cursors.begin(), m_vec3_cursors.end(), LaneCursors{});
    set_up(std::span<RotationLanes>(m_rotation_lanes), m_rotation_cursors, m_rotation_tracks);
    set_up(std::span<Vec3Lanes>(m_vec3_lanes), m_vec3_cursors, m_vec3_tracks);
    find_finished();
  }

  void sample_frame(uint32_t frame, std::span<Transform> pose) {
    m_finished_changed = false;
    advance<4>(std::span<RotationLanes>(m_rotation_lanes), m_rotation_cursors, frame);
    advance<3>(std::span<Vec3Lanes>(m_vec3_lanes), m_vec3_cursors, frame);
    std::memcpy(pose.data(), m_constant_pose.data(), m_constant_pose.size() * sizeof(Transform));
    unsigned char* bytes = reinterpret_cast<unsigned char*>(pose.data());
    const float t = static_cast<float>(frame);
    evaluate_lanes(std::span<const RotationLanes>(m_rotation_lanes), t, bytes);
    evaluate_lanes(std::span<const Vec3Lanes>(m_vec3_lanes), t, bytes);
    if (m_finished_changed) find_finished();
    for (const uint32_t lane : m_finished_rotations) {
      finish_last_segment(std::span<const RotationLanes>(m_rotation_lanes), lane, t, pose);
    }
    for (const uint32_t lane : m_finished_vec3s) finish_last_segment(std::span<const Vec3Lanes>(m_vec3_lanes), lane, t, pose);
  }

  size_t data_bytes() const { return m_data.size() - 16; }

 private:
  StreamKeyLayout layout_of(const StreamTrack& track, uint32_t key) const {
    return segment_layout(m_stream.key_widths(), track.key_widths_bit, segment_of_key(key),
                          track.quantization.coded_mask, track.key_coding.negation_bits);
  }

  // The widths of the segment that starts at the lane's next key, from one
  // peek at the key widths section (segment_layout reads them field by field).
  void load_layout(LaneCursors& c, uint32_t lane) const {
    const StreamTrack& track = m_stream.tracks()[c.track[lane]];
    const uint8_t coded = track.quantization.coded_mask;
    const BitReader section(m_stream.key_widths(), track.key_widths_bit + uint64_t{segment_of_key(c.keys_read[lane])} *
                                                                             segment_width_bits(coded));
    uint32_t packed = section.peek(kSegmentWidthBits * kKeyFields);
    uint32_t at = 0;
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      uint32_t width = 0;
      if (f == 0 || ((coded >> (f - 1)) & 1u) != 0) {
        width = packed & ((1u << kSegmentWidthBits) - 1u);
        packed >>= kSegmentWidthBits;
      }
      c.shift[f][lane] = at;
      c.mask[f][lane] = (uint64_t{1} << width) - 1u;
      at += width;
    }
    c.shift[kKeyFields][lane] = at;
    c.mask[kKeyFields][lane] = track.key_coding.negation_bits ? 1 : 0;
    c.key_bits[lane] = at + c.mask[kKeyFields][lane];
    c.segment_end[lane] = c.keys_read[lane] + kKeysPerSegment;
    c.wide = std::any_of(std::begin(c.key_bits), std::end(c.key_bits), [](uint64_t bits) { return bits > 57; });
  }

  // The lanes as Player::restart() leaves them: keys 0..2 in each window
  // (copies of key 0 before them), staged and shifted in one round per key.
  template <int Components>
  void set_up(std::span<SegmentLanes<Components>> blocks, std::vector<LaneCursors>& cursors,
              const std::vector<uint32_t>& lane_tracks) {
    const FittedClip& clip = m_clip;
    const std::vector<uint64_t>& start = m_start_bit;
    const std::span<const StreamTrack> tracks = m_stream.tracks();
    for (uint32_t lane = 0; lane < lane_tracks.size(); ++lane) {
      const StreamTrack& track = tracks[lane_tracks[lane]];
      const size_t member = track.kind == TrackKind::kRotation    ? offsetof(Transform, rotation)
                            : track.kind == TrackKind::kTranslation ? offsetof(Transform, translation)
                                                                    : offsetof(Transform, scale);
      blocks[lane / kLanesPerBlock].output[lane % kLanesPerBlock] =
          track.bone * static_cast<uint32_t>(sizeof(Transform)) + static_cast<uint32_t>(member);
      set_lane_dequantization(blocks, lane, track.quantization);
    }
    for (uint32_t position = 0; position < kKeysPerLane; ++position) {
      for (uint32_t lane = 0; lane < lane_tracks.size(); ++lane) {
        const uint32_t t = lane_tracks[lane];
        const FittedTrack& fitted = clip.tracks[t];
        const uint32_t initial = std::min<uint32_t>(tracks[t].key_count, kInitialKeysPerTrack);
        const int32_t k = std::max<int32_t>(0, static_cast<int32_t>(initial + position) - 4);
        const FittedKey& key = fitted.keys[k];
        stage_lane_key(blocks, lane, key.codes, key.frame, is_negated(fitted, key));
      }
      if (position + 1 < kKeysPerLane) {
        for (auto& block : blocks) shift_in_staged_keys(block);
      }
    }
    for (auto& block : blocks) build_coefficients(block);
    for (uint32_t lane = 0; lane < lane_tracks.size(); ++lane) {
      const uint32_t t = lane_tracks[lane];
      const FittedTrack& fitted = clip.tracks[t];
      const uint32_t initial = std::min<uint32_t>(tracks[t].key_count, kInitialKeysPerTrack);
      LaneCursors& c = cursors[lane / kLanesPerBlock];
      const uint32_t l = lane % kLanesPerBlock;
      c.track[l] = t;
      c.bit[l] = start[t];
      c.keys_read[l] = initial;
      c.keys_left[l] = static_cast<int32_t>(tracks[t].key_count - initial);
      for (int i = 0; i < 4; ++i) c.codes[i][l] = fitted.keys[initial - 1].codes[i];
      c.frame[l] = fitted.keys[initial - 1].frame;
      c.need[l] = fitted.keys[initial >= 2 ? initial - 2 : 0].frame;
      c.frame_delta_min[l] = tracks[t].key_coding.frame_delta_min;
      if (c.keys_left[l] > 0) load_layout(c, l);
    }
  }

  // Reads the next key of every lane in `due` (bit l: lane l) into the
  // block's staged keys, eight lanes per AVX2 instruction.
  template <int Components>
  void read_due_keys(SegmentLanes<Components>& block, LaneCursors& c, __m256i due) {
    const __m256i bit_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.bit));
    const __m256i bit_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.bit + 4));
    const long long* base = reinterpret_cast<const long long*>(m_data.data());
    const __m256i seven = _mm256_set1_epi64x(7);
    __m256i window_lo = _mm256_i64gather_epi64(base, _mm256_srli_epi64(bit_lo, 3), 1);
    __m256i window_hi = _mm256_i64gather_epi64(base, _mm256_srli_epi64(bit_hi, 3), 1);
    window_lo = _mm256_srlv_epi64(window_lo, _mm256_and_si256(bit_lo, seven));
    window_hi = _mm256_srlv_epi64(window_hi, _mm256_and_si256(bit_hi, seven));
    // Field f of the eight lanes as 32-bit numbers.
    const auto field = [&](uint32_t f) {
      const __m256i lo = _mm256_and_si256(
          _mm256_srlv_epi64(window_lo, _mm256_load_si256(reinterpret_cast<const __m256i*>(c.shift[f]))),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(c.mask[f])));
      const __m256i hi = _mm256_and_si256(
          _mm256_srlv_epi64(window_hi, _mm256_load_si256(reinterpret_cast<const __m256i*>(c.shift[f] + 4))),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(c.mask[f] + 4)));
      const __m256 evens = _mm256_shuffle_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), _MM_SHUFFLE(2, 0, 2, 0));
      return _mm256_permute4x64_epi64(_mm256_castps_si256(evens), _MM_SHUFFLE(3, 1, 2, 0));
    };
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i frame_old = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.frame));
    const __m256i frame_new = _mm256_add_epi32(
        frame_old, _mm256_add_epi32(field(0), _mm256_load_si256(reinterpret_cast<const __m256i*>(c.frame_delta_min))));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.frame), _mm256_blendv_epi8(frame_old, frame_new, due));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.need),
                       _mm256_blendv_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(c.need)), frame_old, due));
    _mm256_store_ps(block.arrivals.frame, _mm256_cvtepi32_ps(frame_new));
    for (int comp = 0; comp < Components; ++comp) {
      const __m256i u = field(comp + 1);
      const __m256i difference = _mm256_xor_si256(_mm256_srli_epi32(u, 1), _mm256_sub_epi32(_mm256_setzero_si256(),
                                                                                              _mm256_and_si256(u, one)));
      const __m256i old = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.codes[comp]));
      const __m256i codes = _mm256_blendv_epi8(old, _mm256_add_epi32(old, difference), due);
      _mm256_store_si256(reinterpret_cast<__m256i*>(c.codes[comp]), codes);
      _mm256_store_ps(block.arrivals.code[comp], _mm256_cvtepi32_ps(codes));
    }
    const __m256i negated = field(kKeyFields);
    _mm256_store_ps(block.arrivals.sign,
                    _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))));
    _mm256_store_ps(block.arrivals.arrived, _mm256_and_ps(_mm256_castsi256_ps(due), _mm256_set1_ps(1.f)));
    block.arrivals.any = true;
    // Cursors of the due lanes move past their key.
    const __m256i due_lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(due));
    const __m256i due_hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(due, 1));
    const __m256i bits_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.key_bits));
    const __m256i bits_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.key_bits + 4));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.bit), _mm256_add_epi64(bit_lo, _mm256_and_si256(bits_lo, due_lo)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.bit + 4),
                       _mm256_add_epi64(bit_hi, _mm256_and_si256(bits_hi, due_hi)));
    const __m256i left = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.keys_left));
    const __m256i left_now = _mm256_add_epi32(left, due);  // due is -1
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.keys_left), left_now);
    if (!_mm256_testz_si256(due, _mm256_cmpeq_epi32(left_now, _mm256_setzero_si256()))) m_finished_changed = true;
    const __m256i read = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.keys_read));
    const __m256i read_now = _mm256_sub_epi32(read, due);
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.keys_read), read_now);
    // A lane that starts a segment takes its widths (one key in sixteen).
    const __m256i ends = _mm256_cmpeq_epi32(read_now, _mm256_load_si256(reinterpret_cast<const __m256i*>(c.segment_end)));
    uint32_t opening = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(ends, due))));
    for (; opening != 0; opening &= opening - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(opening));
      if (c.keys_left[lane] > 0) load_layout(c, lane);
    }
  }

  // read_due_keys for a block with a key wider than one load: lane by lane.
  template <int Components>
  void read_due_keys_one_by_one(SegmentLanes<Components>& block, LaneCursors& c, uint32_t due) {
    for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
      block.arrivals.arrived[l] = ((due >> l) & 1u) != 0 ? 1.f : 0.f;
      block.arrivals.sign[l] = 1.f;
      if (((due >> l) & 1u) != 0) {
        BitReader reader(m_data, c.bit[l]);
        uint32_t frame = static_cast<uint32_t>(c.frame[l]);
        int32_t codes[4] = {c.codes[0][l], c.codes[1][l], c.codes[2][l], c.codes[3][l]};
        StreamKeyLayout layout;
        for (uint32_t f = 0; f < kKeyFields; ++f) {
          layout.shift[f] = static_cast<uint8_t>(c.shift[f][l]);
          layout.mask[f] = static_cast<uint32_t>(c.mask[f][l]);
        }
        layout.negation_shift = static_cast<uint8_t>(c.shift[kKeyFields][l]);
        layout.negation_mask = static_cast<uint8_t>(c.mask[kKeyFields][l]);
        layout.key_bits = static_cast<uint8_t>(c.key_bits[l]);
        const bool negated = read_stream_key(reader, layout, static_cast<uint32_t>(c.frame_delta_min[l]), frame, codes);
        block.arrivals.sign[l] = negated ? -1.f : 1.f;
        c.need[l] = c.frame[l];
        c.frame[l] = static_cast<int32_t>(frame);
        for (int i = 0; i < 4; ++i) c.codes[i][l] = codes[i];
        c.bit[l] = reader.position();
        if (--c.keys_left[l] == 0) m_finished_changed = true;
        ++c.keys_read[l];
        if (c.keys_read[l] == c.segment_end[l] && c.keys_left[l] > 0) load_layout(c, l);
      }
      for (int i = 0; i < Components; ++i) block.arrivals.code[i][l] = static_cast<float>(c.codes[i][l]);
      block.arrivals.frame[l] = static_cast<float>(c.frame[l]);
    }
    block.arrivals.any = true;
  }

  // Reads every key due by `frame` into the lanes, then rebuilds the
  // coefficients of the blocks that took any.
  template <int Components>
  void advance(std::span<SegmentLanes<Components>> blocks, std::vector<LaneCursors>& cursors,
                                        uint32_t frame) {
    const __m256i now = _mm256_set1_epi32(static_cast<int32_t>(frame));
    for (size_t b = 0; b < blocks.size(); ++b) {
      LaneCursors& c = cursors[b];
      bool took = false;
      for (;;) {
        const __m256i left = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.keys_left));
        const __m256i need = _mm256_load_si256(reinterpret_cast<const __m256i*>(c.need));
        const __m256i due = _mm256_andnot_si256(_mm256_cmpgt_epi32(need, now),
                                                _mm256_cmpgt_epi32(left, _mm256_setzero_si256()));
        if (_mm256_testz_si256(due, due)) break;
        if (took) shift_in_staged_keys(blocks[b]);  // a second key for some lane: the first goes in first
        if (c.wide) [[unlikely]] {
          read_due_keys_one_by_one(blocks[b], c, static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(due))));
        } else {
          read_due_keys(blocks[b], c, due);
        }
        took = true;
      }
      if (took) build_coefficients(blocks[b]);
    }
  }

  // A lane holding its track's last key also covers the final segment (from
  // its third key to its fourth), as Player::evaluate does.
  template <int Components>
  static void finish_last_segment(std::span<const SegmentLanes<Components>> blocks, uint32_t lane, float t,
                                  std::span<Transform> pose) {
    CurveKey keys[kWindowSize];
    for (uint32_t i = 1; i < kWindowSize; ++i) keys[i] = lane_key(blocks, lane, i);
    if (!(t >= keys[2].frame)) return;
    float value[4];
    evaluate_segment(keys[1], keys[2], keys[3], keys[3], t, Components, value);
    if constexpr (Components == 4) normalize_rotation(value);
    std::memcpy(reinterpret_cast<unsigned char*>(pose.data()) + blocks[lane / kLanesPerBlock].output[lane % kLanesPerBlock],
                value, Components * sizeof(float));
  }

  // The lanes whose track has no key left to read.
  void find_finished() {
    const auto find = [](const std::vector<LaneCursors>& cursors, std::vector<uint32_t>& out, size_t lanes) {
      out.clear();
      for (uint32_t lane = 0; lane < lanes; ++lane) {
        if (cursors[lane / kLanesPerBlock].keys_left[lane % kLanesPerBlock] == 0) out.push_back(lane);
      }
    };
    find(m_rotation_cursors, m_finished_rotations, m_rotation_tracks.size());
    find(m_vec3_cursors, m_finished_vec3s, m_vec3_tracks.size());
  }

  const StreamView& m_stream;
  const FittedClip& m_clip;
  std::vector<uint8_t> m_data;
  std::vector<uint64_t> m_start_bit;  // per track: where its stream keys start in m_data
  std::vector<uint32_t> m_rotation_tracks, m_vec3_tracks;  // the track of each lane
  std::vector<Transform> m_constant_pose;
  std::vector<RotationLanes> m_rotation_lanes;
  std::vector<Vec3Lanes> m_vec3_lanes;
  std::vector<LaneCursors> m_rotation_cursors;
  std::vector<LaneCursors> m_vec3_cursors;
  std::vector<uint32_t> m_finished_rotations, m_finished_vec3s;  // lanes past their track's last key
  bool m_finished_changed = false;  // a lane read its track's last key in this sample
};

int fail(const std::string& message) {
  std::fprintf(stderr, "keystream-track-major-probe: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return fail("usage: keystream-track-major-probe CLIP[#ANIMATION] [LOOPS]");
  if (!__builtin_cpu_supports("avx2")) {
    std::fprintf(stderr, "keystream-track-major-probe: this CPU has no AVX2, which the probe's reader is written for\n");
    return 77;  // ctest's "skipped"
  }
  std::string path = argv[1];
  ImportSettings import_settings;
  if (const size_t hash = path.rfind('#'); hash != std::string::npos) {
    import_settings.animation_name = path.substr(hash + 1);
    path.resize(hash);
  }
  const Result<ImportedClip> imported = import_clip(path, import_settings);
  if (!imported.ok()) return fail(imported.error());
  const Result<FittedClip> fitted = fit_clip(imported.value().skeleton, imported.value().clip, FitSettings{},
                                             std::max(1u, std::thread::hardware_concurrency()));
  if (!fitted.ok()) return fail(path + ": " + fitted.error());
  const Result<std::vector<uint8_t>> bytes = pack(fitted.value(), tool_pack_settings());
  if (!bytes.ok()) return fail(path + ": " + bytes.error());
  const Result<StreamView> view = StreamView::open(bytes.value(), path.c_str());
  if (!view.ok()) return fail(view.error());
  const StreamView& stream = view.value();
  const uint32_t frames = stream.frame_count();

  // Every frame, forward, must give the Player's pose bit for bit.
  std::vector<Transform> expected(stream.bone_count()), pose(stream.bone_count());
  {
    Player player(stream);
    TrackMajorPlayer probe(stream, fitted.value());
    for (uint32_t f = 0; f < frames; ++f) {
      player.sample_frame(static_cast<float>(f), expected);
      probe.sample_frame(f, pose);
      if (std::memcmp(expected.data(), pose.data(), pose.size() * sizeof(Transform)) != 0) {
        for (size_t bone = 0; bone < pose.size(); ++bone) {
          if (std::memcmp(&expected[bone], &pose[bone], sizeof(Transform)) != 0) {
            return fail("frame " + std::to_string(f) + ": bone " + std::to_string(bone) + " differs from the Player's");
          }
        }
      }
    }
  }

  const uint64_t loops = argc > 2 ? std::stoull(argv[2]) : std::max<uint64_t>(1, 100000 / frames);
  constexpr int kRepetitions = 9;
  std::vector<double> probe_ns, player_ns, baseline_ns;
  BinarySearchSampler baseline(fitted.value());
  TrackMajorPlayer probe(stream, fitted.value());
  for (int repetition = 0; repetition < kRepetitions; ++repetition) {
    for (int which = 0; which < 3; ++which) {
      const auto start = std::chrono::steady_clock::now();
      if (which == 0) {
        for (uint64_t loop = 0; loop < loops; ++loop) {
          probe.restart();
          for (uint32_t f = 0; f < frames; ++f) probe.sample_frame(f, pose);
        }
      } else if (which == 2) {
        for (uint64_t loop = 0; loop < loops; ++loop) {
          for (uint32_t f = 0; f < frames; ++f) baseline.sample_frame(static_cast<float>(f), pose);
        }
      } else {
        Player player(stream);
        for (uint64_t loop = 0; loop < loops; ++loop) {
          for (uint32_t f = 0; f < frames; ++f) player.sample_frame(static_cast<float>(f), pose);
        }
      }
      const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                        static_cast<double>(loops * frames);
      (which == 0 ? probe_ns : which == 1 ? player_ns : baseline_ns).push_back(ns);
    }
  }
  std::sort(probe_ns.begin(), probe_ns.end());
  std::sort(player_ns.begin(), player_ns.end());
  std::sort(baseline_ns.begin(), baseline_ns.end());
  const double base = baseline_ns[kRepetitions / 2];
  std::printf("%s: %u frames, %u animated tracks, every pose equal to the Player's; key stream %zu bytes track-major\n",
              path.c_str(), frames, stream.animated_track_count(), probe.data_bytes());
  std::printf("ns per pose (min, median): track-major %.0f, %.0f; Player %.0f, %.0f; baseline %.0f, %.0f\n",
              probe_ns.front(), probe_ns[kRepetitions / 2], player_ns.front(), player_ns[kRepetitions / 2],
              baseline_ns.front(), base);
  std::printf("median / baseline's: track-major %.3f, Player %.3f\n", probe_ns[kRepetitions / 2] / base,
              player_ns[kRepetitions / 2] / base);
  return 0;
}
