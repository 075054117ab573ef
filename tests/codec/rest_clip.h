#pragma once
// A clip for the rest-track tests (FitSettings::rest_tracks, TrackCoding::kRest,
// format version 11): five bones whose constant tracks mostly hold the
// skeleton's rest value, so that RestTracks::kSkip codes them as rest tracks.

#include <cmath>
#include <cstdint>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/transform.h"
#include "tests/codec/random_clip.h"

namespace ks::test {

/// Bone tracks (3 x bone + kind) of rest_clip() that hold the rest value:
/// bone 1's translation and scale, bone 2's translation and rotation, bone
/// 4's rotation. Every other constant track is the identity (where the rest
/// value is the identity too, or not) or another value.
inline constexpr uint32_t kRestClipRestTracks[] = {3, 5, 6, 7, 13};
inline constexpr uint32_t kRestClipRestValueCount = 3 + 3 + 3 + 4 + 4;  // their components
/// Tracks of rest_clip() that move; their rest values are their first frame's.
inline constexpr uint32_t kRestClipMovingTracks[] = {0, 1, 4, 9};

/// The rest-track clip: bones root (0), spine (1, under 0), arm (2, under 1),
/// hand (3, under 2) and tail (4, under 0); 30 frames at 30 Hz.
///   bone 0: translation and rotation move, scale 1 (identity; rest 1);
///   bone 1: translation and scale (1.1) at rest, rotation moves;
///   bone 2: translation and rotation at rest, scale 1 (identity; rest 1);
///   bone 3: translation moves, rotation identity (rest identity), scale 1;
///   bone 4: translation constant away from rest, rotation at rest, scale
///           constant 0.8 (rest 1).
inline RandomClip rest_clip() {
  RandomClip out;
  Skeleton& s = out.skeleton;
  s.bone_names = {"root", "spine", "arm", "hand", "tail"};
  s.parents = {-1, 0, 1, 2, 0};
  s.rest_pose = {
      Transform{{0.f, 1.f, 0.f}, quat_from_axis_angle({0.f, 1.f, 0.f}, 0.3f), {1.f, 1.f, 1.f}},
      Transform{{0.f, 0.4f, 0.f}, quat_from_axis_angle({1.f, 0.f, 0.f}, 0.2f), {1.1f, 1.1f, 1.1f}},
      Transform{{0.3f, 0.f, 0.f}, quat_from_axis_angle({0.f, 0.f, 1.f}, 0.5f), {1.f, 1.f, 1.f}},
      Transform{{0.2f, 0.f, 0.f}, Quat{}, {1.f, 1.f, 1.f}},
      Transform{{0.f, -0.2f, 0.1f}, quat_from_axis_angle({0.f, 0.6f, 0.8f}, 1.f), {1.f, 1.f, 1.f}},
  };
  RawClip& clip = out.clip;
  clip.name = "rest";
  clip.sample_rate_hz = 30.f;
  clip.frame_count = 30;
  clip.bones.resize(s.bone_count());
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    const float t = static_cast<float>(f);
    for (uint32_t b = 0; b < s.bone_count(); ++b) {
      const Transform& rest = s.rest_pose[b];
      BoneTracks& bone = clip.bones[b];
      Transform pose = rest;
      switch (b) {
        case 0:
          pose.translation = rest.translation + Vec3{0.2f * std::sin(0.2f * t), 0.05f * std::cos(0.3f * t), 0.f};
          pose.rotation = rest.rotation * quat_from_axis_angle({0.f, 1.f, 0.f}, 0.6f * std::sin(0.15f * t));
          break;
        case 1:
          pose.rotation = rest.rotation * quat_from_axis_angle({1.f, 0.f, 0.f}, 0.4f * std::sin(0.25f * t));
          break;
        case 2: break;
        case 3: pose.translation = rest.translation + Vec3{0.f, 0.1f * std::sin(0.3f * t), 0.f}; break;
        default:
          pose.translation = {0.5f, 0.5f, 0.5f};
          pose.scale = {0.8f, 0.8f, 0.8f};
          break;
      }
      bone.translations.push_back(pose.translation);
      bone.rotations.push_back(pose.rotation);
      bone.scales.push_back(pose.scale);
    }
  }
  for (BoneTracks& bone : clip.bones) make_rotations_continuous(bone.rotations);
  return out;
}

}  // namespace ks::test
