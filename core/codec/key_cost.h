#pragma once
// The bits a fitted track's keys take (DESIGN §7): choosing each Rice
// parameter and the absolute width for the track, and counting the bits of
// its initial keys and key stream entries. The packer writes with the
// coding chosen here; the fitter compares choices by the bits counted here.

#include <array>
#include <cstdint>

#include "keystream/codec/track_fit.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/stream_key_layout.h"

namespace ks {

/// The parameters that make `track`'s keys (an animated track) fewest bits,
/// and whether its keys must carry a "negated" bit (is_negated).
KeyCoding choose_key_coding(const FittedTrack& track);

/// True when the fitter's hemisphere chain negated `key` of `track`: its
/// value is not the one its codes dequantize to. A track with such a key
/// carries a "negated" bit per key (stream_format.h), so the player never
/// runs the chain.
bool is_negated(const FittedTrack& track, const FittedKey& key);

/// Bits of key `k` (>= 1) of `track` written as differences from key k - 1
/// with `coding`, its "negated" bit included.
uint64_t key_difference_bits(const FittedTrack& track, const KeyCoding& coding, size_t k);

/// Bits of `track`'s keys with `coding` as the stream writes them: key 0
/// absolute, keys 1 and 2 as Rice-coded differences (the initial keys), the
/// rest (the key stream) at the fixed widths of their segment, and the
/// segments' widths (stream_key_layout.h); "negated" bits included.
uint64_t key_bits(const FittedTrack& track, const KeyCoding& coding);

/// Bits of `track`'s keys were every key after key 0 a Rice-coded difference
/// (format version 4): what the bench sets the fixed-width layout against.
uint64_t rice_key_bits(const FittedTrack& track, const KeyCoding& coding);

/// The widths of segment `segment` of `track`'s stream keys: the bits of its
/// largest frame difference past coding.frame_delta_min, then of each
/// component's largest zigzagged difference (0 for a component not coded).
std::array<uint32_t, kKeyFields> segment_widths(const FittedTrack& track, const KeyCoding& coding,
                                                uint32_t segment);

}  // namespace ks
