#pragma once
// The resampling rate of a glTF animation (internal to the glTF importer).
// A curve sampled on frames can pass far from a key that falls between two
// of them (issue 16: a 90-degree key at 0.5123 s decoded 58 degrees off at
// 30 Hz), so the rate is one that puts a frame on every key time wherever
// such a rate is within reason; key times it still misses are checked as
// key poses (raw_clip.h SourceKeyPose).

#include <cstdint>
#include <vector>

#include "keystream/io/gltf_channel.h"
#include "keystream/io/import.h"

namespace ks::gltf {

/// Whether source time `t_s` falls on a frame of a clip whose frame 0 is at
/// `start_s`, sampled at `rate_hz`: within 1e-3 frames plus what rounding
/// the two times to float may have moved them.
bool on_frame(double t_s, double start_s, double rate_hz);

/// Seconds within which a key time counts as on the frame at `t_s`
/// (on_frame's slack): a STEP channel is sampled this much late, so that a
/// key on a frame jumps at that frame even where float rounding puts the
/// frame's time a hair before the key's.
double on_frame_slack_s(double t_s, double start_s, double rate_hz);

/// Frames of a clip lasting `duration_s` at `rate_hz`: the last frame is the
/// first at or after the last key (82.00008 frames of float key times is 82).
double frame_count_at(double duration_s, double rate_hz);

/// The resampling rate of `channels` (bone and scalar channels alike), whose
/// keys run from start_s to end_s, for a clip of `bone_count` bones (plus
/// scalar components, which settings.max_bone_frames counts as bones):
/// 1. settings.sample_rate_hz when set;
/// 2. else the keys' own rate where every key lies on one uniform grid
///    (below 1 Hz, its smallest whole multiple reaching 1 Hz);
/// 3. else the lowest rate that puts a frame on every key time, of 24, 25,
///    30, 23.976 and 29.97 Hz, the rate of the smallest gap between keys,
///    and their whole multiples up to 240 Hz (Fox's Run: 24 Hz keys with one
///    0.2 s gap land at 120 Hz);
/// 4. else the one of those that lands the most key times, if it lands at
///    least half of them and more than 30 Hz does; else 30 Hz.
/// Rates whose frame count settings.max_bone_frames or the 16-bit frame
/// index refuse are passed over in 3 and 4. Where a channel is STEP or
/// CUBICSPLINE, a rate below 30 Hz from 2-4 is raised by a whole multiple to
/// reach it: keys still land on frames, and the jump or the bulge between
/// them has frames to show it.
double resampling_rate(const std::vector<Channel>& channels, double start_s, double end_s, uint64_t bone_count,
                       const ImportSettings& settings);

}  // namespace ks::gltf
