#pragma once
// Keyed channels to a RawClip (internal to the importers): every channel of
// one animation sampled at one fixed rate, from the first key to the last,
// with the rate chosen and the file's own key times kept as the bound's
// checkpoints as gltf_sample_rate.h describes. The glTF importer feeds it
// its samplers; the assimp importer (FBX, Collada) its node channels, whose
// keys interpolate as glTF LINEAR ones do.

#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/io/gltf_channel.h"
#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks::gltf {

/// `channels` (each Channel::bone a bone of `skeleton`, checked: times
/// non-decreasing, values one per key) sampled for every bone of `skeleton`
/// from the first key to the last, at the rate resampling_rate picks (or
/// settings.sample_rate_hz). Bones without a channel take their rest value;
/// a later channel for the same property overwrites an earlier one. A
/// LINEAR or CUBICSPLINE key time between frames becomes a SourceKeyPose
/// (the bound is measured there too) and a STEP one jumps at the next frame,
/// each with a warning. A track whose channel is LINEAR or STEP with every
/// key on a frame gets its source_keys: those frames, plus frame 0 and the
/// last frame (where it holds its first and last key), and its
/// interpolation; other tracks none (the last channel of a property
/// decides, as for its values). Refuses more than 65535 frames, a clip past
/// settings.max_bone_frames (before allocating it) and a rotation of no
/// direction, naming `clip_name` and the bone. `start_s` is set to the
/// source time of frame 0, seconds.
Result<RawClip> resample_channels(const std::string& clip_name, const Skeleton& skeleton,
                                  const std::vector<Channel>& channels, const ImportSettings& settings, double& start_s,
                                  std::vector<std::string>& warnings);

/// The same with scalar tracks: `scalars` (names and targets, values empty)
/// become RawClip::scalars, each sampled at the same frames from the
/// Path::kWeight channels whose Channel::scalar names it; at a frame one of
/// its keys lands on (within on_frame's float noise), a track holds that
/// key's value exactly; its source_keys are set as a bone track's are.
/// Their keys count for the start, the end and the rate as the bones' do;
/// the size limit counts each scalar component as a bone (check_clip_size).
/// A continuous scalar key between frames is not a key pose (those hold
/// bones only): a warning says so.
Result<RawClip> resample_channels(const std::string& clip_name, const Skeleton& skeleton,
                                  const std::vector<Channel>& channels, std::vector<ScalarTrack> scalars,
                                  const ImportSettings& settings, double& start_s, std::vector<std::string>& warnings);

}  // namespace ks::gltf
