#pragma once
// The bits a fitted track's keys take (DESIGN §7): choosing each Rice
// parameter and the absolute width for the track, and counting the bits of
// its initial keys and key stream entries. The packer writes with the
// coding chosen here; the fitter compares choices by the bits counted here.

#include <cstdint>

#include "core/offline/track_fit.h"
#include "core/runtime/key_coding.h"

namespace ks {

/// The parameters that make `track`'s keys (an animated track) fewest bits.
KeyCoding choose_key_coding(const FittedTrack& track);

/// Bits of `track`'s keys with `coding`: key 0 absolute, every later key as
/// differences (the initial keys section and the key stream together).
uint64_t key_bits(const FittedTrack& track, const KeyCoding& coding);

}  // namespace ks
