#pragma once
// RawClip: a clip sampled at a fixed rate, every track at every frame. It is
// the input of fitting and the reference every error is measured against.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keystream/clip/additive_base.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/curve.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// A track's keys in its source file, where the file keys it sparsely with
/// LINEAR or STEP interpolation and every key falls on a frame: the fit may
/// keep a subset of these frames as keys of a curve of that interpolation
/// (docs/curves.md). A hint only: the error is measured at every frame either way.
struct SourceKeys {
  Interpolation interpolation = Interpolation::kHermite;  // kHermite: sampled, no keys to keep
  std::vector<uint32_t> frames;  // increasing, from 0 to the last frame

  bool keyed() const { return interpolation != Interpolation::kHermite && frames.size() >= 2; }
};

/// The three tracks of one bone, each with one sample per frame.
struct BoneTracks {
  std::vector<Vec3> translations;  // metres, in the parent's space
  std::vector<Quat> rotations;     // unit, each in the hemisphere of the one before
  std::vector<Vec3> scales;
  /// Per TrackKind (translation, rotation, scale): the source's keys.
  SourceKeys source_keys[3];
};

/// Limits shared by import and validation.
inline constexpr uint32_t kMinFrameCount = 2;
inline constexpr uint32_t kMaxFrameCount = 65535;  // frame indices are 16 bits in the stream

/// The source's pose at a time between frames. Where a file has a key the
/// resampling rate does not land on, the bound is checked there too (fit,
/// measure): the file's own keys are what the animator set, and a curve
/// through the frames can pass far from a key between them.
struct SourceKeyPose {
  float frame_time = 0.f;        // fractional frame within the clip
  std::vector<Transform> pose;   // every bone, local
};

/// What a scalar track drives (DESIGN §3).
enum class ScalarTarget : uint8_t {
  kCurve = 0,        // nothing the codec knows: a user curve (gameplay, materials)
  kMorphWeight = 1,  // the weight of morph target `target_index` of node `node`'s mesh
};
const char* to_string(ScalarTarget target);

/// Components of a scalar track: 1 (a float) to 4 (a float4).
inline constexpr uint32_t kMaxScalarComponents = 4;
/// Scalar tracks of one clip at most (track indices stay 16 bits).
inline constexpr uint32_t kMaxScalarTracks = 65535;

/// A float track sampled at every frame: a morph-target weight or a user
/// curve. Its error is the largest component difference, in its own unit;
/// the precision promised is a fit setting (FitSettings::scalar_precision).
struct ScalarTrack {
  std::string name;         // unique in the clip; morph weights: "NODE/TARGET"
  uint32_t components = 1;  // 1..kMaxScalarComponents
  std::vector<float> values;  // frame f's components at [f * components ...]
  ScalarTarget target = ScalarTarget::kCurve;
  std::string node;           // morph weights: the node whose mesh the target belongs to
  uint32_t target_index = 0;  // morph weights: the target's index in that mesh
  SourceKeys source_keys;     // the source's keys, where it keys the track sparsely

  /// Frame `frame`'s value as four floats (components past `components` 0).
  void value_at(uint32_t frame, float out[4]) const {
    for (uint32_t c = 0; c < 4; ++c) out[c] = c < components ? values[size_t{frame} * components + c] : 0.f;
  }
};

/// An animation of a Skeleton sampled every 1/sample_rate_hz seconds.
struct RawClip {
  std::string name;
  float sample_rate_hz = 30.f;     // frames per second
  uint32_t frame_count = 0;        // frame f is at time f / sample_rate_hz
  std::vector<BoneTracks> bones;   // one per skeleton bone, same order
  std::vector<SourceKeyPose> key_poses;  // the source at its keys between frames, in time order
  std::vector<ScalarTrack> scalars;      // morph weights and user curves, each at every frame
  /// When additive: the bones hold the difference to these poses, and every
  /// error is measured on the composed pose (core/clip/additive.h).
  AdditiveBasePoses additive_base;

  /// Seconds from the first frame to the last.
  float duration_s() const {
    return frame_count > 1 ? static_cast<float>(frame_count - 1) / sample_rate_hz : 0.f;
  }

  /// The local pose at `frame` (0 <= frame < frame_count).
  std::vector<Transform> pose_at(uint32_t frame) const;

  /// Checks, naming the first rule broken (with bone and frame):
  /// - the sample rate is finite and positive;
  /// - 2 to 65535 frames;
  /// - one BoneTracks per skeleton bone, each track with frame_count samples;
  /// - every value is finite;
  /// - every rotation is a unit quaternion (|length - 1| <= 1e-4);
  /// - consecutive rotations of a track have a non-negative dot product;
  /// - a track's source keys, where keyed(): strictly increasing frames
  ///   from 0 to the last frame;
  /// - key poses lie between the first and last frame, one finite transform
  ///   per bone with unit rotations;
  /// - scalar tracks: at most kMaxScalarTracks, unique names of at most
  ///   65535 bytes, 1..4 components, frame_count values each, all finite,
  ///   source keys as a bone track's;
  /// - an additive clip: no key poses (its base is not defined between
  ///   frames), one base pose or one per frame, finite, unit rotations, no
  ///   scale component 0.
  Status validate(const Skeleton& skeleton) const;
  /// The scalar-track rules of validate() alone.
  Status validate_scalars() const;
  /// The additive-base rules of validate() alone.
  Status validate_additive_base(const Skeleton& skeleton) const;
};

/// Normalises every quaternion and negates those whose dot product with the
/// previous one is negative, so interpolation never takes the long way round.
void make_rotations_continuous(std::span<Quat> rotations);

/// `bone`'s track of `kind` at `frame` as four floats, the way curves hold
/// values: x y z w for a rotation, x y z 0 for a translation or scale.
void track_value(const BoneTracks& bone, TrackKind kind, uint32_t frame, float out[4]);
/// The same of one transform (a pose's entry for a bone).
void track_value(const Transform& transform, TrackKind kind, float out[4]);

}  // namespace ks
