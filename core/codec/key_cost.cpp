#include "keystream/codec/key_cost.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "keystream/codec/quantize.h"
#include "keystream/runtime/bit_reader.h"

namespace ks {

namespace {

// The Rice parameter of fewest total bits for `values`.
uint8_t best_rice(const std::vector<uint32_t>& values) {
  uint64_t best_bits = std::numeric_limits<uint64_t>::max();
  uint8_t best = 0;
  for (uint32_t k = 0; k <= kMaxRiceParameter; ++k) {
    uint64_t bits = 0;
    for (uint32_t v : values) bits += rice_bits(v, k);
    if (bits < best_bits) {
      best_bits = bits;
      best = static_cast<uint8_t>(k);
    }
  }
  return best;
}

}  // namespace

bool is_negated(const FittedTrack& track, const FittedKey& key) {
  if (track.kind != TrackKind::kRotation) return false;
  const CurveKey raw = decode_key(track.kind, track.quantization, key.codes, key.frame);
  return std::memcmp(raw.value, key.decoded.value, sizeof raw.value) != 0;
}

KeyCoding choose_key_coding(const FittedTrack& track) {
  KeyCoding coding;
  const std::vector<FittedKey>& keys = track.keys;
  uint32_t largest = 0;
  for (const FittedKey& key : keys) {
    for (int c = 0; c < 4; ++c) {
      if (track.quantization.coded(c)) largest = std::max(largest, static_cast<uint32_t>(std::abs(key.codes[c])));
    }
  }
  coding.absolute_bits = static_cast<uint8_t>(bits_for(largest) + 1);
  bool discontinuous = false;
  for (size_t k = 1; k < keys.size(); ++k) discontinuous = discontinuous || keys[k].frame == keys[k - 1].frame;
  coding.frame_delta_min = discontinuous ? 0 : 1;
  std::vector<uint32_t> values;
  values.reserve(keys.size());
  for (size_t k = 1; k < keys.size(); ++k) values.push_back(keys[k].frame - keys[k - 1].frame - coding.frame_delta_min);
  coding.frame_rice = best_rice(values);
  for (int c = 0; c < 4; ++c) {
    if (!track.quantization.coded(c)) continue;
    values.clear();
    for (size_t k = 1; k < keys.size(); ++k) values.push_back(zigzag(keys[k].codes[c] - keys[k - 1].codes[c]));
    coding.value_rice[c] = best_rice(values);
  }
  coding.negation_bits = std::any_of(keys.begin(), keys.end(), [&](const FittedKey& k) { return is_negated(track, k); });
  return coding;
}

uint64_t key_difference_bits(const FittedTrack& track, const KeyCoding& coding, size_t k) {
  const std::vector<FittedKey>& keys = track.keys;
  uint64_t bits = rice_bits(keys[k].frame - keys[k - 1].frame - coding.frame_delta_min, coding.frame_rice);
  for (int c = 0; c < 4; ++c) {
    if (track.quantization.coded(c)) bits += rice_bits(zigzag(keys[k].codes[c] - keys[k - 1].codes[c]), coding.value_rice[c]);
  }
  return bits + (coding.negation_bits ? 1 : 0);
}

uint64_t rice_key_bits(const FittedTrack& track, const KeyCoding& coding) {
  const std::vector<FittedKey>& keys = track.keys;
  if (keys.empty()) return 0;
  uint64_t bits = uint64_t{coding.absolute_bits} * static_cast<uint64_t>(track.quantization.coded_count());
  if (coding.negation_bits) ++bits;
  for (size_t k = 1; k < keys.size(); ++k) bits += key_difference_bits(track, coding, k);
  return bits;
}

std::array<uint32_t, kKeyFields> segment_widths(const FittedTrack& track, const KeyCoding& coding,
                                                uint32_t segment) {
  const std::vector<FittedKey>& keys = track.keys;
  const size_t first = kInitialKeysPerTrack + size_t{segment} * kKeysPerSegment;
  const size_t end = std::min(keys.size(), first + kKeysPerSegment);
  uint32_t largest[kKeyFields] = {0, 0, 0, 0, 0};  // frame difference, then each component's
  for (size_t k = first; k < end; ++k) {
    largest[0] = std::max<uint32_t>(largest[0], keys[k].frame - keys[k - 1].frame - coding.frame_delta_min);
    for (int c = 0; c < 4; ++c) {
      if (track.quantization.coded(c)) {
        largest[c + 1] = std::max(largest[c + 1], zigzag(keys[k].codes[c] - keys[k - 1].codes[c]));
      }
    }
  }
  std::array<uint32_t, kKeyFields> widths;
  for (uint32_t f = 0; f < kKeyFields; ++f) widths[f] = static_cast<uint32_t>(std::bit_width(largest[f]));
  return widths;
}

uint64_t key_bits(const FittedTrack& track, const KeyCoding& coding) {
  const std::vector<FittedKey>& keys = track.keys;
  if (keys.empty()) return 0;
  uint64_t bits = uint64_t{coding.absolute_bits} * static_cast<uint64_t>(track.quantization.coded_count());
  if (coding.negation_bits) ++bits;
  for (size_t k = 1; k < keys.size() && k < kInitialKeysPerTrack; ++k) bits += key_difference_bits(track, coding, k);
  const uint32_t key_count = static_cast<uint32_t>(keys.size());
  for (uint32_t s = 0; s < segment_count(key_count); ++s) {
    const std::array<uint32_t, kKeyFields> widths = segment_widths(track, coding, s);
    const uint32_t keys_in_segment = std::min(kKeysPerSegment, key_count - kInitialKeysPerTrack - s * kKeysPerSegment);
    bits += segment_width_bits(track.quantization.coded_mask) +
            uint64_t{keys_in_segment} * make_stream_key_layout(widths.data(), coding.negation_bits).key_bits;
  }
  return bits;
}

}  // namespace ks
