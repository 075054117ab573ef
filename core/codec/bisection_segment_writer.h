#pragma once
// Writes bisection segments (core/runtime/bisection_segment.h): the
// anchor, each group's widths (the bits its largest residual needs), then
// the records in storage order.

#include <span>

#include "keystream/codec/bit_writer.h"
#include "keystream/runtime/bisection_segment.h"

namespace ks {

/// Writes a segment's anchor, absolute: its frame in `frame_bits`, its
/// coded components in the absolute width, its "negated" bit (the first
/// fields of a bisection or a sag segment).
void write_segment_anchor(BitWriter& out, const BisectionTrackCoding& track, const BisectionKey& anchor);

/// Writes the segment of `keys` (1..kKeysPerSegment, frames non-decreasing
/// from `before`'s), `before` being the key before it, as
/// read_bisection_segment reads it back. Codes within +-kMaxCodeMagnitude
/// and in the track's absolute width, frames within `frame_bits`.
void write_bisection_segment(BitWriter& out, const BisectionTrackCoding& track, std::span<const BisectionKey> keys,
                             const BisectionKey& before);

}  // namespace ks
