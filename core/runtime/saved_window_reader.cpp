#include "keystream/runtime/saved_window_reader.h"

#include <algorithm>

#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/stream_format.h"

#if defined(__x86_64__) || defined(_M_X64)
#define KS_X86_64 1
#endif

namespace ks {

namespace {

// The reference, lane by lane through a bounds-checked reader: also what
// reads a state whose last fields lie within 4 bytes of the end.
uint32_t read_saved_windows_scalar(const SavedWindowLanes& lanes, std::span<const uint8_t> states, uint64_t state_bit,
                                   uint32_t jump_frame, LaneCursors& c, LaneArrivals& slot,
                                   uint32_t (&keys_read)[kLanesPerBlock]) {
  uint32_t saved = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    keys_read[l] = 0;
    if (((lanes.streamed >> l) & 1u) == 0) continue;
    uint32_t field[kSavedWindowFields];
    for (uint32_t f = 0; f < kSavedWindowFields; ++f) {
      BitReader reader(states, state_bit + lanes.bit_at[f][l]);
      field[f] = lanes.width[f][l] == 0 ? 0 : reader.read(lanes.width[f][l]);
    }
    const uint32_t key_count = static_cast<uint32_t>(lanes.key_count[l]);
    const uint32_t count = std::clamp(field[kSavedKeysRead], kInitialKeysPerTrack, key_count);
    keys_read[l] = count;
    if (count < kRestoreFromRunKeys) continue;
    saved |= 1u << l;
    const uint32_t before = field[kSavedFrameDifference];
    const uint32_t frame = before <= jump_frame ? jump_frame - before : 0;  // StreamView::open refuses more
    const bool negated = field[kSavedNegated] != 0;
    const uint32_t next = count - (kWindowSize - 1);
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t width = lanes.width[kSavedFirstCode + i][l];
      const int32_t code = width == 0 ? 0 : sign_extend(field[kSavedFirstCode + i], width);
      slot.code[i][l] = static_cast<float>(code);
      c.codes[i][l] = code;
    }
    slot.frame[l] = static_cast<float>(frame);
    slot.sign[l] = negated ? -1.f : 1.f;
    slot.arrived[l] = 1.f;
    c.keys_read[l] = next;
    c.keys_left[l] = static_cast<int32_t>(key_count - next);
    c.frame[l] = static_cast<int32_t>(frame);
    c.need[l] = 0;
  }
  return saved;
}

}  // namespace

void set_saved_window_lane(SavedWindowLanes& lanes, uint32_t lane, uint32_t offset, uint32_t key_count,
                           uint32_t key_index_bits, uint32_t difference_bits, uint32_t absolute_bits,
                           uint8_t coded_mask, bool negation_bits) {
  lanes.key_count[lane] = static_cast<int32_t>(key_count);
  lanes.streamed |= 1u << lane;
  uint32_t at = offset;
  const auto put = [&](uint32_t f, uint32_t bits) {
    lanes.bit_at[f][lane] = at;
    lanes.width[f][lane] = bits;
    at += bits;
  };
  put(kSavedKeysRead, key_index_bits);
  if (!saves_oldest_key(key_count)) return;
  put(kSavedFrameDifference, difference_bits);
  for (uint32_t i = 0; i < 4; ++i) put(kSavedFirstCode + i, ((coded_mask >> i) & 1u) != 0 ? absolute_bits : 0);
  put(kSavedNegated, negation_bits ? 1 : 0);
}

uint32_t read_saved_windows(const SavedWindowLanes& lanes, std::span<const uint8_t> states, uint64_t state_bit,
                            uint32_t jump_frame, LaneCursors& c, LaneArrivals& slot,
                            uint32_t (&keys_read)[kLanesPerBlock]) {
#if KS_X86_64
  // A block of one or two windows (a small clip's) reads them faster lane by lane than with seven gathers.
  if (count_lanes(lanes.streamed) > 2 && simd_level() >= SimdLevel::kAvx2) {
    const uint32_t saved = detail::read_saved_windows_avx2(lanes, states.data(), states.size(), state_bit, jump_frame,
                                                           c, slot, keys_read);
    if (saved != detail::kNotRead) return saved;
  }
#endif
  return read_saved_windows_scalar(lanes, states, state_bit, jump_frame, c, slot, keys_read);
}

}  // namespace ks
