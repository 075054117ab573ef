#pragma once
// The bits a fitted track's keys take (DESIGN §7): choosing each Rice
// parameter and the absolute width for the track, and counting the bits of
// its initial keys and key stream entries. The packer writes with the
// coding chosen here; the fitter compares choices by the bits counted here.

#include <cstdint>

#include "core/offline/track_fit.h"
#include "core/runtime/key_coding.h"

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

/// Bits of `track`'s keys with `coding`: key 0 absolute, every later key as
/// differences, "negated" bits included (the initial keys section and the
/// key stream together).
uint64_t key_bits(const FittedTrack& track, const KeyCoding& coding);

/// A candidate key layout the stream does not use yet, measured by the bench
/// to decide on one (issue 15): keys 1.. in segments of `segment_keys`; each
/// segment opens with a width (kSegmentWidthBits) for the frame difference
/// and for each coded component's zigzagged difference, the largest its keys
/// need, and every key in it takes exactly those widths (plus its "negated"
/// bit). A key's length then follows from its track alone, so a reader skips
/// or decodes it without the serial chain of Rice codes. Key 0 is absolute,
/// as in key_bits. Returns the bits of `track`'s keys in that layout.
inline constexpr uint32_t kSegmentWidthBits = 5;
uint64_t segmented_key_bits(const FittedTrack& track, const KeyCoding& coding, uint32_t segment_keys);

/// The widths of that layout's segment of keys first .. end - 1 (first >= 1):
/// the bits of its largest frame difference past coding.frame_delta_min,
/// then of each component's largest zigzagged difference (0 for a component
/// not coded).
void segment_field_widths(const FittedTrack& track, const KeyCoding& coding, size_t first, size_t end,
                          uint32_t (&widths)[5]);

}  // namespace ks
