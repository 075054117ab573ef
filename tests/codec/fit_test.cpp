#include "keystream/codec/fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/stream_view.h"
#include "tests/codec/fit_test_support.h"
#include "tests/codec/random_clip.h"
#include "tests/hostile_name.h"
#include "tests/refused_mentioning.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using test::refused_mentioning;

// --- clips built for one behaviour --------------------------------------------

using test::expect_object_space_promise;
using test::fit_or_fail;
using test::import_every_animation;
using test::local_settings;
using test::Sampled;
using test::shipped_clip_files;
using test::unit_axis;

using Vec3At = std::function<Vec3(uint32_t frame)>;
using QuatAt = std::function<Quat(uint32_t frame)>;

Vec3 constant_vec3(uint32_t) {
  return {0.f, 0.f, 0.f};
}
Vec3 unit_scale(uint32_t) {
  return {1.f, 1.f, 1.f};
}
Quat identity(uint32_t) {
  return Quat{};
}

// One bone whose three tracks are the given functions of the frame.
Sampled one_bone(uint32_t frames, const Vec3At& translation, const QuatAt& rotation, const Vec3At& scale) {
  Sampled s;
  s.skeleton.bone_names = {"bone"};
  s.skeleton.parents = {-1};
  s.skeleton.rest_pose = {Transform{}};
  s.clip.name = "one_bone";
  s.clip.frame_count = frames;
  s.clip.bones.resize(1);
  BoneTracks& t = s.clip.bones[0];
  for (uint32_t f = 0; f < frames; ++f) {
    t.translations.push_back(translation(f));
    t.rotations.push_back(rotation(f));
    t.scales.push_back(scale(f));
  }
  make_rotations_continuous(t.rotations);
  return s;
}

// A smooth swing about a tilted axis, about 70 degrees either way.
Quat swing(uint32_t f) {
  return quat_from_axis_angle(unit_axis({0.3f, 0.8f, 0.52f}), 1.2f * std::sin(0.07f * static_cast<float>(f)));
}

// --- measuring a fitted track against its source -------------------------------

// The source value of `track` at `frame`, as four floats.
void source_value(const RawClip& clip, const FittedTrack& track, uint32_t frame, float out[4]) {
  track_value(clip.bones[track.bone], track.kind, frame, out);
}

// The decoded error of `track` at source frame `frame`.
float decoded_error(const RawClip& clip, const FittedTrack& track, uint32_t frame) {
  float source[4], decoded[4];
  source_value(clip, track, frame, source);
  evaluate_fitted(track, static_cast<float>(frame), decoded);
  return track_error(track.kind, source, decoded);
}

// The largest decoded error of `track` over the source frames.
float true_max_error(const RawClip& clip, const FittedTrack& track) {
  float worst = 0.f;
  for (uint32_t f = 0; f < clip.frame_count; ++f) worst = std::max(worst, decoded_error(clip, track, f));
  return worst;
}

const char* kind_name(TrackKind kind) {
  return kind == TrackKind::kTranslation ? "translation" : kind == TrackKind::kRotation ? "rotation" : "scale";
}

// The promise of DESIGN §5 for every track of `fitted`: at every source frame
// the decoded value is within max_error, and within the threshold when the
// track says it met it; a track that did not meet it reports a floor above
// the threshold. Returns the number of tracks that did not meet it.
int expect_promise_kept(const RawClip& clip, const FittedClip& fitted) {
  int missed = 0;
  for (const FittedTrack& track : fitted.tracks) {
    SCOPED_TRACE(::testing::Message() << "bone " << track.bone << " " << kind_name(track.kind) << ", "
                                      << track.keys.size() << " keys, threshold " << track.threshold << ", max error "
                                      << track.max_error << ", floor " << track.floor);
    EXPECT_EQ(track.threshold_met, track.max_error <= track.threshold);
    if (!track.threshold_met) {
      ++missed;
      EXPECT_GT(track.floor, track.threshold) << "a missed threshold without a floor to explain it";
    }
    float worst = 0.f;
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      const float error = decoded_error(clip, track, f);
      worst = std::max(worst, error);
      EXPECT_LE(error, track.max_error) << "frame " << f;
      if (track.threshold_met) {
        EXPECT_LE(error, track.threshold) << "frame " << f;
      }
      if (::testing::Test::HasFailure()) return missed;
    }
    EXPECT_EQ(worst, track.max_error) << "max_error is not the largest error over the frames";
  }
  return missed;
}

// Frames that hold two keys (discontinuities) in `track`.
std::vector<uint16_t> discontinuity_frames(const FittedTrack& track) {
  std::vector<uint16_t> frames;
  for (size_t k = 1; k < track.keys.size(); ++k) {
    if (track.keys[k].frame == track.keys[k - 1].frame) frames.push_back(track.keys[k].frame);
  }
  return frames;
}

// --- FitSettings::validate -------------------------------------------------------

TEST(FitSettingsValidate, AcceptsDefaults) {
  const Status status = FitSettings{}.validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(FitSettingsValidate, AcceptsLimitValues) {
  FitSettings settings;
  settings.error_mode = ErrorMode::kLocal;
  settings.tolerance_m = 1e-9f;
  settings.shell_distance_m = 1e3f;
  settings.bone_tolerances = {BoneTolerance{"hand", 1e-6f, 0.f}};  // 0: the inherited distance
  settings.translation_error_m = 1e-9f;
  settings.rotation_error_deg = 179.9f;
  settings.scale_error = 1e6f;
  settings.discontinuity_ratio = 0.f;  // off
  settings.split_rule = SplitRule::kMidpoint;
  const Status status = settings.validate();
  EXPECT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(FitSettings{}.error_mode, ErrorMode::kObjectSpace);
  EXPECT_EQ(FitSettings{}.tolerance_m, 0.0001f);
  EXPECT_EQ(FitSettings{}.shell_distance_m, 0.03f);
}

TEST(FitSettingsValidate, RefusesThresholdsThatAreNotPositiveAndFinite) {
  for (const float bad : {0.f, -0.001f, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(bad);
    FitSettings translation;
    translation.translation_error_m = bad;
    EXPECT_TRUE(refused_mentioning(translation.validate(), {"translation error"}));
    FitSettings rotation;
    rotation.rotation_error_deg = bad;
    EXPECT_TRUE(refused_mentioning(rotation.validate(), {"rotation error"}));
    FitSettings scale;
    scale.scale_error = bad;
    EXPECT_TRUE(refused_mentioning(scale.validate(), {"scale error"}));
    FitSettings tolerance;
    tolerance.tolerance_m = bad;
    EXPECT_TRUE(refused_mentioning(tolerance.validate(), {"tolerance must be a positive number of metres"}));
    FitSettings shell;
    shell.shell_distance_m = bad;
    EXPECT_TRUE(refused_mentioning(shell.validate(), {"shell distance must be a positive number of metres"}));
    FitSettings bone;
    bone.bone_tolerances = {BoneTolerance{"hand", bad, 0.f}};
    EXPECT_TRUE(refused_mentioning(bone.validate(), {"tolerance of bone \"hand\""}));
  }
  for (const float bad : {-0.001f, kNaN, kInf}) {
    FitSettings bone;
    bone.bone_tolerances = {BoneTolerance{"hand", 0.001f, bad}};
    EXPECT_TRUE(refused_mentioning(bone.validate(), {"shell distance of bone \"hand\""})) << bad;
  }
  FitSettings unnamed;
  unnamed.bone_tolerances = {BoneTolerance{"", 0.001f, 0.f}};
  EXPECT_TRUE(refused_mentioning(unnamed.validate(), {"names no bone"}));
}

TEST(FitSettingsValidate, RefusesRotationErrorOf180DegreesOrMore) {
  for (const float bad : {180.f, 180.5f, 720.f}) {
    SCOPED_TRACE(bad);
    FitSettings settings;
    settings.rotation_error_deg = bad;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"rotation error", "180"}));
  }
}

TEST(FitSettingsValidate, RefusesADiscontinuityRatioThatIsNegativeOrNotFinite) {
  for (const float bad : {-1.f, -1e-6f, kNaN, kInf}) {
    SCOPED_TRACE(bad);
    FitSettings settings;
    settings.discontinuity_ratio = bad;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"discontinuity ratio"}));
  }
}

TEST(FitSettingsValidate, RefusesAnUnknownSplitRuleOrErrorMode) {
  FitSettings settings;
  settings.split_rule = static_cast<SplitRule>(5);
  EXPECT_TRUE(refused_mentioning(settings.validate(), {"split rule"}));
  FitSettings mode;
  mode.error_mode = static_cast<ErrorMode>(7);
  EXPECT_TRUE(refused_mentioning(mode.validate(), {"error mode"}));
}

TEST(ErrorMode, HasNames) {
  EXPECT_STREQ(to_string(ErrorMode::kObjectSpace), "object-space");
  EXPECT_STREQ(to_string(ErrorMode::kLocal), "local");
}

TEST(SplitRule, HasNames) {
  EXPECT_STREQ(to_string(SplitRule::kLargestError), "largest-error");
  EXPECT_STREQ(to_string(SplitRule::kMidpoint), "midpoint");
}

// --- fit_clip: refusals --------------------------------------------------------------

TEST(FitClip, RefusesInvalidSettings) {
  const Sampled s = one_bone(10, constant_vec3, swing, unit_scale);
  FitSettings settings;
  settings.rotation_error_deg = -1.f;
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, settings), {"fit settings", "rotation error"}));
}

TEST(FitClip, RefusesBoneTolerancesTheSkeletonCannotTake) {
  const Sampled s = one_bone(10, constant_vec3, swing, unit_scale);
  FitSettings unknown;
  unknown.bone_tolerances = {BoneTolerance{"tail", 0.001f, 0.f}};
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, unknown), {"fit settings", "no bone named \"tail\""}));
  FitSettings twice;
  twice.bone_tolerances = {BoneTolerance{"bone", 0.001f, 0.f}, BoneTolerance{"bone", 0.002f, 0.f}};
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, twice), {"\"bone\" has two tolerances"}));
  for (const float bad : {0.f, -1e-4f, kNaN}) {
    FitSettings invalid;
    invalid.bone_tolerances = {BoneTolerance{"bone", bad, 0.f}};
    EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, invalid), {"fit settings", "\"bone\""})) << bad;
  }
}

TEST(FitClip, RefusesAClipWithOneFrame) {
  Sampled s = one_bone(1, constant_vec3, identity, unit_scale);
  s.clip.name = "too_short";
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, {}), {"too_short", "1 frames"}));
}

TEST(FitClip, RefusesAClipThatDoesNotMatchItsSkeleton) {
  Sampled s = one_bone(10, constant_vec3, identity, unit_scale);
  s.skeleton.bone_names.push_back("extra");
  s.skeleton.parents.push_back(0);
  s.skeleton.rest_pose.push_back(Transform{});
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, {}), {"one_bone", "bones"}));
}

TEST(FitClip, RefusesANonUnitRotation) {
  Sampled s = one_bone(10, constant_vec3, identity, unit_scale);
  s.clip.bones[0].rotations[4] = Quat{0.f, 0.f, 0.f, 2.f};
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, {}), {"one_bone", "rotation", "unit"}));
}

TEST(FitClip, RefusesANonFiniteValue) {
  Sampled s = one_bone(10, constant_vec3, identity, unit_scale);
  s.clip.bones[0].scales[3].y = kNaN;
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, {}), {"one_bone", "scale", "finite"}));
}

TEST(FitClip, RefusesValuesWhoseRangeCannotBeRepresented) {
  Sampled s = one_bone(10, constant_vec3, identity, unit_scale);
  s.clip.bones[0].translations[2].x = 3e38f;
  s.clip.bones[0].translations[5].x = -3e38f;  // max - min overflows float
  EXPECT_TRUE(refused_mentioning(fit_clip(s.skeleton, s.clip, {}), {"one_bone", "beyond 1e30"}));
}

TEST(FitClip, QuotesHostileBoneAndClipNamesAsShortPrintableExcerpts) {
  // A bone's non-finite value (RawClip::validate names the bone).
  Sampled s = one_bone(10, constant_vec3, identity, unit_scale);
  s.skeleton.bone_names[0] = test::hostile_name();
  s.clip.bones[0].scales[3].y = kNaN;
  Result<FittedClip> fitted = fit_clip(s.skeleton, s.clip, {});
  ASSERT_FALSE(fitted.ok());
  EXPECT_TRUE(test::quotes_hostile_name_briefly(fitted.error()));
  // A value out of range, in a clip of that name.
  s = one_bone(10, constant_vec3, identity, unit_scale);
  s.clip.name = test::hostile_name();
  s.clip.bones[0].translations[2].x = 3e38f;
  fitted = fit_clip(s.skeleton, s.clip, {});
  ASSERT_FALSE(fitted.ok());
  EXPECT_TRUE(test::quotes_hostile_name_briefly(fitted.error()));
  // A tolerance for a bone of that name, which the skeleton does not have.
  s = one_bone(10, constant_vec3, identity, unit_scale);
  FitSettings settings;
  settings.bone_tolerances = {{test::hostile_name(), 0.001f, 0.f}};
  fitted = fit_clip(s.skeleton, s.clip, settings);
  ASSERT_FALSE(fitted.ok());
  EXPECT_TRUE(test::quotes_hostile_name_briefly(fitted.error()));
}

// --- fit_clip: what it produces -------------------------------------------------------

TEST(FitClip, DescribesTheClipAndHasThreeTracksPerBone) {
  test::RandomClipOptions options;
  options.min_bones = options.max_bones = 4;
  const test::RandomClip random = test::make_random_clip(17, options);
  FitSettings settings = local_settings();
  settings.rotation_error_deg = 0.5f;
  Result<FittedClip> fitted = fit_clip(random.skeleton, random.clip, settings);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  const FittedClip& c = fitted.value();
  EXPECT_EQ(c.bone_names, random.skeleton.bone_names);
  EXPECT_TRUE(c.bones.empty());  // per-bone figures are object-space only
  EXPECT_EQ(c.rounds, 1u);
  EXPECT_EQ(c.name, random.clip.name);
  EXPECT_EQ(c.sample_rate_hz, random.clip.sample_rate_hz);
  EXPECT_EQ(c.frame_count, random.clip.frame_count);
  EXPECT_EQ(c.parents, random.skeleton.parents);
  EXPECT_EQ(c.settings.rotation_error_deg, 0.5f);
  ASSERT_EQ(c.tracks.size(), 12u);
  size_t keys = 0;
  for (size_t t = 0; t < c.tracks.size(); ++t) {
    EXPECT_EQ(c.tracks[t].bone, t / 3);
    EXPECT_EQ(c.tracks[t].kind, static_cast<TrackKind>(t % 3));
    const float threshold[3] = {settings.translation_error_m, settings.rotation_error_deg, settings.scale_error};
    EXPECT_EQ(c.tracks[t].threshold, threshold[t % 3]);
    keys += c.tracks[t].coding == TrackCoding::kAnimated ? c.tracks[t].keys.size() : 0;
  }
  EXPECT_EQ(c.key_count(), keys);
  EXPECT_EQ(c.bound_met(), c.thresholds_met());
  EXPECT_EQ(c.thresholds_met(),
            std::all_of(c.tracks.begin(), c.tracks.end(), [](const FittedTrack& t) { return t.threshold_met; }));
}

TEST(FitClip, ConstantTracksAreExactAndIdentityTracksCostNothing) {
  const Quat turned = normalize(Quat{0.2f, -0.5f, 0.1f, 0.8f});
  const Sampled s = one_bone(
      120,
      [](uint32_t) {
        return Vec3{0.3f, -1.2f, 2.5f};
      },
      [&](uint32_t) { return turned; },
      [](uint32_t) {
        return Vec3{1.f, 2.f, 0.5f};
      });
  for (const ErrorMode mode : {ErrorMode::kLocal, ErrorMode::kObjectSpace}) {
    SCOPED_TRACE(to_string(mode));
    FitSettings settings;
    settings.error_mode = mode;
    const FittedClip fitted = fit_or_fail(s, settings);
    ASSERT_EQ(fitted.tracks.size(), 3u);
    for (const FittedTrack& track : fitted.tracks) {
      SCOPED_TRACE(kind_name(track.kind));
      EXPECT_EQ(track.coding, TrackCoding::kConstant);
      EXPECT_TRUE(track.keys.empty());  // a value in place, no key
      EXPECT_TRUE(track.threshold_met);
      // Exact values; a rotation's angle to itself measures a float's noise.
      EXPECT_LE(track.max_error, track.kind == TrackKind::kRotation ? 1e-5f : 0.f);
      // The source value, bit for bit, at every frame time.
      float source[4];
      source_value(s.clip, track, 0, source);
      for (const float t : {0.f, 33.5f, 119.f}) {
        float decoded[4];
        evaluate_fitted(track, t, decoded);
        for (int c = 0; c < component_count(track.kind); ++c) {
          EXPECT_EQ(std::bit_cast<uint32_t>(decoded[c]), std::bit_cast<uint32_t>(source[c])) << "component " << c;
        }
      }
    }
    EXPECT_EQ(fitted.key_count(), 0u);
    expect_promise_kept(s.clip, fitted);
  }
  // At the identity: nothing at all.
  const Sampled rest = one_bone(50, constant_vec3, identity, unit_scale);
  const FittedClip fitted = fit_or_fail(rest, FitSettings{});
  for (const FittedTrack& track : fitted.tracks) {
    EXPECT_EQ(track.coding, TrackCoding::kIdentity) << kind_name(track.kind);
    EXPECT_TRUE(track.keys.empty());
    EXPECT_EQ(track.keys.capacity(), 0u) << "a constant track allocates nothing";
  }
}

TEST(FitClip, ATrackCostsAHundredBytesAtMost) {
  // A rig of 50,000 bones has 150,000 tracks, nearly all constant: each is
  // one record and no allocation (the studio's hostile flat_50000 case).
  EXPECT_LE(sizeof(FittedTrack), 96u);
}

TEST(FitClip, NearlyConstantTracksBecomeConstantWithinTheThreshold) {
  // Motion far below the thresholds: one value represents it.
  const Sampled s = one_bone(
      60,
      [](uint32_t f) {
        return Vec3{0.5f + 1e-6f * std::sin(static_cast<float>(f)), 0.f, 0.f};
      },
      [](uint32_t f) {
        return quat_from_axis_angle({0.f, 1.f, 0.f}, 1e-5f * std::sin(static_cast<float>(f)));
      },
      unit_scale);
  const FittedClip fitted = fit_or_fail(s);
  EXPECT_EQ(fitted.tracks[0].coding, TrackCoding::kConstant);
  EXPECT_NE(fitted.tracks[1].coding, TrackCoding::kAnimated);
  EXPECT_EQ(fitted.tracks[2].coding, TrackCoding::kIdentity);
  expect_promise_kept(s.clip, fitted);
}

TEST(FitClip, LinearRampsNeedOnlyTheEndKeys) {
  // Both tangents of a two-key track are one-sided differences, so the curve
  // between two keys is a straight line.
  const Sampled s = one_bone(
      100,
      [](uint32_t f) {
        return Vec3{0.01f * static_cast<float>(f), 1.f - 0.02f * static_cast<float>(f), 0.5f};
      },
      identity,
      [](uint32_t f) {
        return Vec3{1.f + 0.005f * static_cast<float>(f), 1.f, 1.f};
      });
  const FittedClip fitted = fit_or_fail(s);
  for (const size_t t : {size_t{0}, size_t{2}}) {
    const FittedTrack& track = fitted.tracks[t];
    SCOPED_TRACE(kind_name(track.kind));
    ASSERT_EQ(track.keys.size(), 2u);
    EXPECT_EQ(track.keys[0].frame, 0u);
    EXPECT_EQ(track.keys[1].frame, 99u);
  }
  EXPECT_TRUE(fitted.tracks[1].keys.empty());  // the identity rotation
  EXPECT_EQ(fitted.tracks[1].coding, TrackCoding::kIdentity);
  expect_promise_kept(s.clip, fitted);
}

TEST(FitClip, SteadyTurnNeedsFewKeys) {
  // 0.02 rad a frame about one axis, 115 degrees in all: component-wise
  // interpolation is not a slerp, but close to one over short spans.
  const Sampled s = one_bone(
      100, constant_vec3,
      [](uint32_t f) {
        return quat_from_axis_angle(unit_axis({1.f, 2.f, 0.5f}), 0.02f * static_cast<float>(f));
      },
      unit_scale);
  const FittedClip fitted = fit_or_fail(s);
  EXPECT_LE(fitted.tracks[1].keys.size(), 10u);
  expect_promise_kept(s.clip, fitted);
}

// The curve through the unquantized keys passes through them, and the
// quantized curve stays within the quantization step of it.
TEST(EvaluateIdeal, PassesThroughTheUnquantizedKeysAndNearTheDecodedCurve) {
  const Sampled s = one_bone(
      120, [](uint32_t f) { return Vec3{0.4f * std::sin(0.11f * static_cast<float>(f)), 0.01f * static_cast<float>(f), 0.f}; },
      swing, unit_scale);
  const FittedClip fitted = fit_or_fail(s);
  for (const FittedTrack& track : fitted.tracks) {
    SCOPED_TRACE(kind_name(track.kind));
    const int components = track.kind == TrackKind::kRotation ? 4 : 3;
    for (size_t k = 0; k + 1 < track.keys.size(); ++k) {
      if (track.keys[k + 1].frame == track.keys[k].frame) continue;  // the left key of a discontinuity is not reached
      float ideal[4];
      evaluate_ideal(track, static_cast<float>(track.keys[k].frame), ideal);
      float expected[4];
      std::copy(std::begin(track.keys[k].ideal), std::end(track.keys[k].ideal), expected);
      if (track.kind == TrackKind::kRotation) normalize_rotation(expected);
      float dot = 0.f;
      for (int c = 0; c < components; ++c) dot += ideal[c] * expected[c];
      const float sign = dot < 0.f ? -1.f : 1.f;  // the hemisphere fix may negate a key
      for (int c = 0; c < components; ++c) EXPECT_NEAR(ideal[c], sign * expected[c], 1e-5f) << "key " << k;
    }
    for (float t = 0.f; t <= 119.f; t += 0.5f) {
      float ideal[4], decoded[4];
      evaluate_ideal(track, t, ideal);
      evaluate_fitted(track, t, decoded);
      // Quantization moves each key by at most half the threshold (the key
      // error share); the curve's weights move the curve by little more.
      EXPECT_LE(track_error(track.kind, ideal, decoded), track.threshold) << "frame time " << t;
    }
  }
}

TEST(FitClip, SmoothMotionHasNoDiscontinuity) {
  const Sampled s = one_bone(
      200,
      [](uint32_t f) {
        return Vec3{0.5f * std::sin(0.3f * static_cast<float>(f)), 0.f, 0.f};
      },
      swing, unit_scale);
  const FittedClip fitted = fit_or_fail(s);
  for (const FittedTrack& track : fitted.tracks) {
    EXPECT_EQ(track.discontinuities, 0u) << kind_name(track.kind);
    EXPECT_TRUE(discontinuity_frames(track).empty()) << kind_name(track.kind);
  }
  expect_promise_kept(s.clip, fitted);
}

// A track that moves smoothly and, when `step` is set, jumps between frames
// 39 and 40 (translation by 1 m, rotation by 90 degrees, scale by 1).
Sampled stepped_clip(bool step = true) {
  const auto jump = [step](uint32_t f, float size) { return step && f >= 40 ? size : 0.f; };
  return one_bone(
      100,
      [&](uint32_t f) {
        const float x = 0.1f * std::sin(0.05f * static_cast<float>(f));
        return Vec3{x + jump(f, 1.f), 0.2f, -0.1f};
      },
      [&](uint32_t f) {
        const float angle = 0.3f * std::sin(0.05f * static_cast<float>(f)) + jump(f, 1.5707963f);
        return quat_from_axis_angle({0.f, 1.f, 0.f}, angle);
      },
      [&](uint32_t f) {
        return Vec3{1.f + 0.05f * std::sin(0.05f * static_cast<float>(f)) + jump(f, 1.f), 1.f, 1.f};
      });
}

TEST(FitClip, SampledStepBecomesADiscontinuity) {
  const Sampled s = stepped_clip();
  for (const SplitRule rule : {SplitRule::kLargestError, SplitRule::kMidpoint}) {
    SCOPED_TRACE(to_string(rule));
    FitSettings settings = local_settings();
    settings.split_rule = rule;
    const FittedClip fitted = fit_or_fail(s, settings);
    const FittedClip smooth = fit_or_fail(stepped_clip(false), settings);
    for (size_t t = 0; t < 3; ++t) {
      const FittedTrack& track = fitted.tracks[t];
      SCOPED_TRACE(kind_name(track.kind));
      EXPECT_EQ(track.discontinuities, 1u);
      EXPECT_EQ(discontinuity_frames(track), std::vector<uint16_t>{40});
      EXPECT_TRUE(track.threshold_met);
      // The step costs its two keys at one frame (and perhaps a few from
      // segments cut differently), not a cluster of keys around it.
      EXPECT_LE(track.keys.size(), smooth.tracks[t].keys.size() + 4)
          << "without the step: " << smooth.tracks[t].keys.size();
    }
    expect_promise_kept(s.clip, fitted);
  }
}

TEST(FitClip, StepWithDiscontinuitiesOffStillMeetsTheThreshold) {
  const Sampled s = stepped_clip();
  FitSettings settings = local_settings();
  settings.discontinuity_ratio = 0.f;
  const FittedClip fitted = fit_or_fail(s, settings);
  for (const FittedTrack& track : fitted.tracks) {
    SCOPED_TRACE(kind_name(track.kind));
    EXPECT_EQ(track.discontinuities, 0u);
    EXPECT_TRUE(discontinuity_frames(track).empty());
    EXPECT_TRUE(track.threshold_met);
  }
  expect_promise_kept(s.clip, fitted);
}

TEST(FitClip, BothSplitRulesMeetTheThresholdOnSyntheticMotion) {
  const Sampled s = one_bone(
      240,
      [](uint32_t f) {
        const float t = static_cast<float>(f);
        return Vec3{0.4f * std::sin(0.11f * t), 0.05f * std::cos(0.37f * t), 0.002f * t};
      },
      [](uint32_t f) {
        const float t = static_cast<float>(f);
        return swing(f) * quat_from_axis_angle({1.f, 0.f, 0.f}, 0.4f * std::sin(0.23f * t));
      },
      [](uint32_t f) {
        return Vec3{1.f + 0.1f * std::sin(0.05f * static_cast<float>(f)), 1.f, 1.f};
      });
  for (const SplitRule rule : {SplitRule::kLargestError, SplitRule::kMidpoint}) {
    SCOPED_TRACE(to_string(rule));
    FitSettings settings = local_settings();
    settings.split_rule = rule;
    const FittedClip fitted = fit_or_fail(s, settings);
    EXPECT_TRUE(fitted.thresholds_met());
    expect_promise_kept(s.clip, fitted);
  }
}

// --- thresholds below what the coding can represent -----------------------------------

TEST(FitClip, FineThresholdsAreMetByFinerSteps) {
  // No fixed bit width: a rotation threshold of 0.001 degrees takes a finer step.
  const Sampled s = one_bone(120, constant_vec3, swing, unit_scale);
  FitSettings coarse = local_settings();
  FitSettings fine = local_settings();
  fine.rotation_error_deg = 0.001f;
  const FittedClip a = fit_or_fail(s, coarse);
  const FittedClip b = fit_or_fail(s, fine);
  EXPECT_TRUE(b.tracks[1].threshold_met);
  EXPECT_LE(b.tracks[1].max_error, 0.001f);
  EXPECT_LT(b.tracks[1].quantization.step, a.tracks[1].quantization.step);
  EXPECT_LE(b.tracks[1].floor, 0.5f * 0.001f);  // the key error share
  EXPECT_FALSE(b.tracks[1].floor_is_limit);
  expect_promise_kept(s.clip, b);
}

TEST(FitClip, AThresholdBelowTheCodeRangeFloorIsReportedNotMissedSilently) {
  // 2 km of motion over 2^24 codes cannot reach 1 um: the floor says so.
  const Sampled s = one_bone(
      90,
      [](uint32_t f) {
        return Vec3{1000.f * std::sin(0.1f * static_cast<float>(f)), 0.0123f, 0.f};
      },
      identity, unit_scale);
  FitSettings settings = local_settings();
  settings.translation_error_m = 1e-6f;
  const FittedClip fitted = fit_or_fail(s, settings);
  const FittedTrack& translation = fitted.tracks[0];
  EXPECT_FALSE(translation.threshold_met);
  EXPECT_FALSE(fitted.thresholds_met());
  EXPECT_FALSE(fitted.bound_met());
  EXPECT_TRUE(translation.floor_is_limit);
  EXPECT_GT(translation.floor, translation.threshold);
  EXPECT_GT(translation.max_error, translation.threshold);
  EXPECT_EQ(translation.max_error, true_max_error(s.clip, translation));
  expect_promise_kept(s.clip, fitted);
}

// --- threads -----------------------------------------------------------------------

void expect_same_fit(const FittedClip& a, const FittedClip& b) {
  auto bits = [](float v) { return std::bit_cast<uint32_t>(v); };
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.frame_count, b.frame_count);
  EXPECT_EQ(a.parents, b.parents);
  ASSERT_EQ(a.tracks.size(), b.tracks.size());
  for (size_t t = 0; t < a.tracks.size(); ++t) {
    SCOPED_TRACE(t);
    const FittedTrack& x = a.tracks[t];
    const FittedTrack& y = b.tracks[t];
    EXPECT_EQ(x.bone, y.bone);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.coding, y.coding);
    EXPECT_EQ(bits(x.quantization.step), bits(y.quantization.step));
    EXPECT_EQ(x.quantization.coded_mask, y.quantization.coded_mask);
    EXPECT_EQ(x.quantization.rotation, y.quantization.rotation);
    EXPECT_EQ(x.quantization.reference_code, y.quantization.reference_code);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(bits(x.quantization.constant[c]), bits(y.quantization.constant[c]));
    EXPECT_EQ(x.floor_is_limit, y.floor_is_limit);
    EXPECT_EQ(bits(x.threshold), bits(y.threshold));
    EXPECT_EQ(bits(x.max_error), bits(y.max_error));
    EXPECT_EQ(bits(x.floor), bits(y.floor));
    EXPECT_EQ(x.threshold_met, y.threshold_met);
    EXPECT_EQ(x.discontinuities, y.discontinuities);
    ASSERT_EQ(x.keys.size(), y.keys.size());
    for (size_t k = 0; k < x.keys.size(); ++k) {
      EXPECT_EQ(x.keys[k].frame, y.keys[k].frame);
      for (int c = 0; c < 4; ++c) EXPECT_EQ(x.keys[k].codes[c], y.keys[k].codes[c]);
      EXPECT_EQ(bits(x.keys[k].decoded.frame), bits(y.keys[k].decoded.frame));
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(bits(x.keys[k].decoded.value[c]), bits(y.keys[k].decoded.value[c]));
        EXPECT_EQ(bits(x.keys[k].ideal[c]), bits(y.keys[k].ideal[c]));
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(a.rounds, b.rounds);
  ASSERT_EQ(a.bones.size(), b.bones.size());
  for (size_t i = 0; i < a.bones.size(); ++i) {
    EXPECT_EQ(bits(a.bones[i].max_error_m), bits(b.bones[i].max_error_m));
    EXPECT_EQ(a.bones[i].worst_frame, b.bones[i].worst_frame);
  }
}

TEST(FitClip, ThreadsGiveTheSameResultAsOneThread) {
  test::RandomClipOptions options;
  options.min_bones = options.max_bones = 6;
  options.min_frames = options.max_frames = 300;
  const test::RandomClip random = test::make_random_clip(4242, options);
  for (const ErrorMode mode : {ErrorMode::kLocal, ErrorMode::kObjectSpace}) {
  SCOPED_TRACE(to_string(mode));
  FitSettings settings;
  settings.error_mode = mode;
  settings.rotation_error_deg = 0.05f;
  Result<FittedClip> one = fit_clip(random.skeleton, random.clip, settings, 1);
  ASSERT_TRUE(one.ok()) << one.error();
  for (const unsigned threads : {0u, 2u, 7u, 64u}) {
    SCOPED_TRACE(threads);
    Result<FittedClip> many = fit_clip(random.skeleton, random.clip, settings, threads);
    ASSERT_TRUE(many.ok()) << many.error();
    expect_same_fit(one.value(), many.value());
  }
  }
}

TEST(FitClip, ThreadsGiveTheSameResultOnTheDemoClip) {
  Result<ImportedClip> demo = import_clip(fs::path(KS_ASSETS_DIR) / "demo_walk.glb");
  ASSERT_TRUE(demo.ok()) << demo.error();
  Result<FittedClip> one = fit_clip(demo.value().skeleton, demo.value().clip, {}, 1);
  Result<FittedClip> two = fit_clip(demo.value().skeleton, demo.value().clip, {}, 2);
  ASSERT_TRUE(one.ok()) << one.error();
  ASSERT_TRUE(two.ok()) << two.error();
  expect_same_fit(one.value(), two.value());
}

// --- every shipped clip ----------------------------------------------------------------

// The developer clips (every .glb, .gltf and .bvh in KS_CLIPS_DIR) and the demo clip.
class FitShippedClip : public ::testing::TestWithParam<fs::path> {};

TEST_P(FitShippedClip, LocalThresholdsKeepThePromiseAtEveryFrame) {
  ASSERT_TRUE(fs::exists(GetParam())) << GetParam();
  for (const ImportedClip& imported : import_every_animation(GetParam())) {
    SCOPED_TRACE("animation \"" + imported.clip.name + "\"");
    Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, local_settings(), 4);
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    EXPECT_EQ(expect_promise_kept(imported.clip, fitted.value()), 0);
    EXPECT_TRUE(fitted.value().thresholds_met());
  }
}

// Both rules are greedy, so neither wins on every track (interpolation_test's
// "Linear Rotation", piecewise linear, takes 17 keys split at the largest
// error and 16 at midpoints); over a file's animations the largest error wins.
TEST_P(FitShippedClip, LargestErrorSplitNeedsNoMoreKeysThanMidpoint) {
  ASSERT_TRUE(fs::exists(GetParam())) << GetParam();
  size_t keys[2] = {0, 0};
  for (const ImportedClip& imported : import_every_animation(GetParam())) {
    SCOPED_TRACE("animation \"" + imported.clip.name + "\"");
    for (const SplitRule rule : {SplitRule::kLargestError, SplitRule::kMidpoint}) {
      SCOPED_TRACE(to_string(rule));
      FitSettings settings = local_settings();
      settings.split_rule = rule;
      Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, settings, 4);
      ASSERT_TRUE(fitted.ok()) << fitted.error();
      expect_promise_kept(imported.clip, fitted.value());
      keys[static_cast<int>(rule)] += fitted.value().key_count();
    }
  }
  EXPECT_LE(keys[0], keys[1]) << "largest-error " << keys[0] << " keys, midpoint " << keys[1];
}

INSTANTIATE_TEST_SUITE_P(DeveloperClips, FitShippedClip, ::testing::ValuesIn(shipped_clip_files()),
                         test::clip_test_name);

}  // namespace
}  // namespace ks

namespace ks {
namespace {

// A clip of a few bones swinging for long enough that a fit makes several
// hundred keys per track.
Sampled swinging_chain(uint32_t frames) {
  Sampled s;
  for (int b = 0; b < 4; ++b) {
    s.skeleton.bone_names.push_back("b" + std::to_string(b));
    s.skeleton.parents.push_back(b - 1);
    Transform rest;
    rest.translation = {0.f, b == 0 ? 0.f : 0.3f, 0.f};
    s.skeleton.rest_pose.push_back(rest);
  }
  s.clip.name = "swinging_chain";
  s.clip.frame_count = frames;
  s.clip.bones.resize(4);
  for (int b = 0; b < 4; ++b) {
    BoneTracks& t = s.clip.bones[static_cast<size_t>(b)];
    for (uint32_t f = 0; f < frames; ++f) {
      const float angle = 0.6f * std::sin(0.05f * static_cast<float>(f) * static_cast<float>(b + 1) + 0.3f * b);
      t.translations.push_back(s.skeleton.rest_pose[static_cast<size_t>(b)].translation);
      t.rotations.push_back(Quat{0.f, 0.f, std::sin(0.5f * angle), std::cos(0.5f * angle)});
      t.scales.push_back({1.f, 1.f, 1.f});
    }
    make_rotations_continuous(t.rotations);
  }
  return s;
}

TEST(FitProgress, CountsEveryTrackOfEveryPass) {
  const Sampled s = swinging_chain(400);
  for (const ErrorMode mode : {ErrorMode::kObjectSpace, ErrorMode::kLocal}) {
    SCOPED_TRACE(to_string(mode));
    FitSettings settings;
    settings.error_mode = mode;
    FitProgress progress;
    const Result<FittedClip> fitted = fit_clip(s.skeleton, s.clip, settings, 2, &progress);
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    EXPECT_GE(progress.pass.load(), mode == ErrorMode::kLocal ? 1u : fitted.value().rounds);
    if (mode == ErrorMode::kLocal) {
      EXPECT_EQ(progress.pass_tracks.load(), 12u);
    }
    EXPECT_EQ(progress.pass_tracks_done.load(), progress.pass_tracks.load());
    EXPECT_EQ(progress.pass_fraction(), 1.f);
    // Watching changes nothing: the same fit as without.
    const FittedClip unwatched = fit_or_fail(s, settings);
    for (size_t t = 0; t < unwatched.tracks.size(); ++t) {
      EXPECT_EQ(fitted.value().tracks[t].keys.size(), unwatched.tracks[t].keys.size()) << t;
    }
  }
}

TEST(FitProgress, AnAbandonedFitStopsAndSaysSo) {
  const Sampled s = swinging_chain(400);
  FitProgress progress;
  progress.abandon = true;  // before the first track: nothing is fitted
  const Result<FittedClip> fitted = fit_clip(s.skeleton, s.clip, FitSettings{}, 1, &progress);
  ASSERT_FALSE(fitted.ok());
  EXPECT_EQ(fitted.error(), kFitAbandonedError);
  EXPECT_EQ(progress.pass.load(), 1u);
  EXPECT_EQ(progress.pass_tracks_done.load(), 0u);
}

}  // namespace
}  // namespace ks
