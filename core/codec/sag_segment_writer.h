#pragma once
// Writes sag segments (core/runtime/sag_segment.h): the anchor, the sag record with its widths, then the other
// records with theirs (the bits their largest residual needs).

#include <span>

#include "keystream/codec/bit_writer.h"
#include "keystream/runtime/sag_segment.h"

namespace ks {

/// Writes the segment of `keys` (1..kKeysPerSegment, frames non-decreasing
/// from `before`'s), `before` being the key before it, as
/// read_sag_segment reads it back. Codes within +-kMaxCodeMagnitude and in
/// the track's absolute width, frames within `frame_bits`.
void write_sag_segment(BitWriter& out, const BisectionTrackCoding& track, std::span<const BisectionKey> keys,
                       const BisectionKey& before);

}  // namespace ks
