#include "core/runtime/lane_reader.h"

#include "core/runtime/bit_reader.h"
#include "core/runtime/stream_view.h"

namespace ks {

namespace {

// The segment layout of lane `l` as read_stream_key takes it.
StreamKeyLayout lane_layout(const LaneCursors& c, uint32_t l) {
  StreamKeyLayout layout;
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    layout.shift[f] = static_cast<uint8_t>(c.shift[f][l]);
    layout.mask[f] = static_cast<uint32_t>(c.mask[f][l]);
  }
  layout.negation_shift = static_cast<uint8_t>(c.shift[kKeyFields][l]);
  layout.negation_mask = static_cast<uint8_t>(c.mask[kKeyFields][l]);
  layout.key_bits = static_cast<uint8_t>(c.key_bits[l]);
  return layout;
}

// The reference, lane by lane through a bounds-checked reader: also what
// reads keys near the end of the stream (a 64-bit load there would pass it)
// and keys wider than one load.
template <int Components>
uint32_t read_lane_keys_scalar(SegmentLanes<Components>& block, LaneCursors& c, uint32_t due,
                               std::span<const uint8_t> key_stream) {
  uint32_t opening = 0;
  LaneArrivals& a = block.arrivals;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    if (((due >> l) & 1u) == 0) continue;
    BitReader reader(key_stream, c.bit[l]);
    uint32_t frame = static_cast<uint32_t>(c.frame[l]);
    int32_t codes[4] = {c.codes[0][l], c.codes[1][l], c.codes[2][l], c.codes[3][l]};
    const bool negated =
        read_stream_key(reader, lane_layout(c, l), static_cast<uint32_t>(c.frame_delta_min[l]), frame, codes);
    c.bit[l] = reader.position();
    c.need[l] = c.frame[l];
    c.frame[l] = static_cast<int32_t>(frame);
    for (int i = 0; i < 4; ++i) c.codes[i][l] = codes[i];
    --c.keys_left[l];
    ++c.keys_read[l];
    if (c.keys_read[l] == c.segment_end[l] && c.keys_left[l] > 0) opening |= 1u << l;
    for (int i = 0; i < Components; ++i) a.code[i][l] = static_cast<float>(codes[i]);
    a.frame[l] = static_cast<float>(frame);
    a.sign[l] = negated ? -1.f : 1.f;
    a.arrived[l] = 1.f;
  }
  a.any = a.any || due != 0;
  return opening;
}

// True when every due lane's key lies in one 64-bit load inside `key_stream`.
bool fits_one_load(const LaneCursors& c, uint32_t due, size_t key_stream_bytes) {
  constexpr uint64_t kWindowBits = 57;  // a 64-bit load less the bit offset within its first byte
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    if (((due >> l) & 1u) == 0) continue;
    if ((c.bit[l] >> 3) + 8 > key_stream_bytes || c.key_bits[l] > kWindowBits) return false;
  }
  return true;
}

template <int Components>
uint32_t read_keys(SegmentLanes<Components>& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream) {
#if defined(__x86_64__) || defined(_M_X64)
  if (simd_level() == SimdLevel::kAvx2 && fits_one_load(c, due, key_stream.size())) {
    return detail::read_lane_keys_avx2(block, c, due, key_stream.data());
  }
#endif
  return read_lane_keys_scalar(block, c, due, key_stream);
}

}  // namespace

void load_lane_layout(LaneCursors& c, uint32_t lane, const StreamTrack& track, std::span<const uint8_t> key_widths,
                      uint32_t key) {
  const uint8_t coded = track.quantization.coded_mask;
  const uint32_t segment = segment_of_key(key);
  // One peek holds a segment's widths: at most kKeyFields fields of kSegmentWidthBits.
  static_assert(kKeyFields * kSegmentWidthBits <= 32);
  const BitReader widths(key_widths, track.key_widths_bit + uint64_t{segment} * segment_width_bits(coded));
  uint32_t packed = widths.peek(kKeyFields * kSegmentWidthBits);
  uint64_t at = 0;
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
  c.segment_end[lane] = kInitialKeysPerTrack + (segment + 1) * kKeysPerSegment;
}

uint32_t read_lane_keys(RotationLanes& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream) {
  return read_keys(block, c, due, key_stream);
}
uint32_t read_lane_keys(Vec3Lanes& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream) {
  return read_keys(block, c, due, key_stream);
}

uint32_t lanes_due(const LaneCursors& c, uint32_t frame) {
  uint32_t due = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    due |= (c.keys_left[l] > 0 && c.need[l] <= static_cast<int32_t>(frame) ? 1u : 0u) << l;
  }
  return due;
}

}  // namespace ks
