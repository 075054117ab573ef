#include "core/offline/fit.h"

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

#include "core/offline/import.h"
#include "tests/offline/random_clip.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Passes when `status` is a refusal whose message contains every part.
template <class T>
::testing::AssertionResult refused_mentioning(const Result<T>& result, std::initializer_list<std::string_view> parts) {
  if (result.ok()) return ::testing::AssertionFailure() << "the input was accepted";
  for (std::string_view part : parts) {
    if (result.error().find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << result.error() << "\" does not mention \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

// --- clips built for one behaviour --------------------------------------------

struct Sampled {
  Skeleton skeleton;
  RawClip clip;
};

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

Vec3 unit_axis(Vec3 v) {
  return v * (1.f / length(v));
}

// A smooth swing about a tilted axis, about 70 degrees either way.
Quat swing(uint32_t f) {
  return quat_from_axis_angle(unit_axis({0.3f, 0.8f, 0.52f}), 1.2f * std::sin(0.07f * static_cast<float>(f)));
}

FittedClip fit_or_fail(const Sampled& s, const FitSettings& settings = {}, unsigned threads = 1) {
  Result<FittedClip> fitted = fit_clip(s.skeleton, s.clip, settings, threads);
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  return fitted.ok() ? std::move(fitted.value()) : FittedClip{};
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
  settings.translation_error_m = 1e-9f;
  settings.rotation_error_deg = 179.9f;
  settings.scale_error = 1e6f;
  settings.discontinuity_ratio = 0.f;  // off
  settings.split_rule = SplitRule::kMidpoint;
  settings.quantization.rotation_bits = 20;
  const Status status = settings.validate();
  EXPECT_TRUE(status.ok()) << status.error();
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
  }
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

TEST(FitSettingsValidate, RefusesAnUnknownSplitRule) {
  FitSettings settings;
  settings.split_rule = static_cast<SplitRule>(5);
  EXPECT_TRUE(refused_mentioning(settings.validate(), {"split rule"}));
}

TEST(FitSettingsValidate, RefusesRotationBitsOutside10To20) {
  for (const uint32_t bits : {0u, 9u, 21u}) {
    SCOPED_TRACE(bits);
    FitSettings settings;
    settings.quantization.rotation_bits = bits;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"rotation bit width", std::to_string(bits)}));
  }
}

TEST(FitSettingsValidate, RefusesAnUnknownRangeMode) {
  FitSettings settings;
  settings.quantization.range_mode = static_cast<RangeMode>(9);
  EXPECT_TRUE(refused_mentioning(settings.validate(), {"range mode"}));
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

// --- fit_clip: what it produces -------------------------------------------------------

TEST(FitClip, DescribesTheClipAndHasThreeTracksPerBone) {
  test::RandomClipOptions options;
  options.min_bones = options.max_bones = 4;
  const test::RandomClip random = test::make_random_clip(17, options);
  FitSettings settings;
  settings.rotation_error_deg = 0.5f;
  Result<FittedClip> fitted = fit_clip(random.skeleton, random.clip, settings);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  const FittedClip& c = fitted.value();
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
    keys += c.tracks[t].keys.size();
  }
  EXPECT_EQ(c.key_count(), keys);
  EXPECT_EQ(c.thresholds_met(),
            std::all_of(c.tracks.begin(), c.tracks.end(), [](const FittedTrack& t) { return t.threshold_met; }));
}

TEST(FitClip, ConstantTracksCollapseToOneKey) {
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
  for (const RangeMode mode : {RangeMode::kPerTrack, RangeMode::kFixed}) {
    SCOPED_TRACE(static_cast<int>(mode));
    FitSettings settings;
    settings.quantization.range_mode = mode;
    const FittedClip fitted = fit_or_fail(s, settings);
    ASSERT_EQ(fitted.tracks.size(), 3u);
    for (const FittedTrack& track : fitted.tracks) {
      SCOPED_TRACE(kind_name(track.kind));
      ASSERT_EQ(track.keys.size(), 1u);
      EXPECT_EQ(track.keys[0].frame, 0u);
      EXPECT_TRUE(track.threshold_met);
    }
    expect_promise_kept(s.clip, fitted);
  }
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
  EXPECT_EQ(fitted.tracks[1].keys.size(), 1u);  // the identity rotation
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
      // Quantization moves the curve by about a step: 16-bit vec3, >= 10-bit rotations.
      const float bound = track.kind == TrackKind::kRotation ? 0.5f : 1e-3f;
      EXPECT_LE(track_error(track.kind, ideal, decoded), bound) << "frame time " << t;
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
    FitSettings settings;
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
  FitSettings settings;
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
    FitSettings settings;
    settings.split_rule = rule;
    const FittedClip fitted = fit_or_fail(s, settings);
    EXPECT_TRUE(fitted.thresholds_met());
    expect_promise_kept(s.clip, fitted);
  }
}

// --- thresholds below what the bit width can represent ---------------------------------

// The largest error of a rotation key placed at any frame of `rotations`
// with `bits`, computed independently of the fitter.
float rotation_floor(const std::vector<Quat>& rotations, uint32_t bits) {
  float worst = 0.f;
  for (const Quat& q : rotations) {
    const CurveKey key = decode_rotation(quantize_rotation(q, bits), bits, 0);
    const float source[4] = {q.x, q.y, q.z, q.w};
    worst = std::max(worst, track_error(TrackKind::kRotation, source, key.value));
  }
  return worst;
}

TEST(FitClip, RotationThresholdBelowThe10BitFloorIsReportedNotMissedSilently) {
  const Sampled s = one_bone(120, constant_vec3, swing, unit_scale);
  FitSettings settings;
  settings.rotation_error_deg = 0.01f;  // 10-bit keys are good to ~0.2 degrees
  settings.quantization.widen_rotation_bits = false;
  const FittedClip fitted = fit_or_fail(s, settings);
  const FittedTrack& rotation = fitted.tracks[1];
  EXPECT_EQ(rotation.quantization.rotation_bits, 10u);
  EXPECT_FALSE(rotation.threshold_met);
  EXPECT_FALSE(fitted.thresholds_met());
  EXPECT_GT(rotation.floor, rotation.threshold);
  EXPECT_EQ(rotation.floor, rotation_floor(s.clip.bones[0].rotations, 10));
  EXPECT_GT(rotation.max_error, rotation.threshold);
  EXPECT_EQ(rotation.max_error, true_max_error(s.clip, rotation));
  expect_promise_kept(s.clip, fitted);
}

TEST(FitClip, WideningGivesTheRotationTrackTheFewestBitsThatMeetTheThreshold) {
  const Sampled s = one_bone(120, constant_vec3, swing, unit_scale);
  FitSettings settings;
  settings.rotation_error_deg = 0.01f;
  ASSERT_TRUE(settings.quantization.widen_rotation_bits);  // the default
  const FittedClip fitted = fit_or_fail(s, settings);
  const FittedTrack& rotation = fitted.tracks[1];
  const uint32_t bits = rotation.quantization.rotation_bits;
  EXPECT_GT(bits, 10u);
  EXPECT_LE(bits, kMaxRotationBits);
  EXPECT_TRUE(rotation.threshold_met);
  EXPECT_LE(rotation.max_error, settings.rotation_error_deg);
  // Widening takes the fewest bits whose floor is within the threshold.
  EXPECT_EQ(rotation.floor, rotation_floor(s.clip.bones[0].rotations, bits));
  EXPECT_LE(rotation.floor, settings.rotation_error_deg);
  EXPECT_GT(rotation_floor(s.clip.bones[0].rotations, bits - 1), settings.rotation_error_deg);
  // Tracks that did not need it keep the configured width.
  EXPECT_EQ(fitted.tracks[0].quantization.rotation_bits, 10u);
  expect_promise_kept(s.clip, fitted);
}

TEST(FitClip, WideningStopsAt20Bits) {
  const Sampled s = one_bone(60, constant_vec3, swing, unit_scale);
  FitSettings settings;
  settings.rotation_error_deg = 1e-5f;  // below even the 20-bit floor (~1e-4 degrees)
  const FittedClip fitted = fit_or_fail(s, settings);
  const FittedTrack& rotation = fitted.tracks[1];
  EXPECT_EQ(rotation.quantization.rotation_bits, kMaxRotationBits);
  EXPECT_FALSE(rotation.threshold_met);
  EXPECT_GT(rotation.floor, rotation.threshold);
  expect_promise_kept(s.clip, fitted);
}

TEST(FitClip, TranslationThresholdBelowTheFixedRangeStepIsReported) {
  // The fixed range's steps are 0.3 mm; a 0.05 mm threshold cannot be met
  // there, but a per-track range over a 5 cm motion has 1.5 um steps.
  const Sampled s = one_bone(
      90,
      [](uint32_t f) {
        return Vec3{0.05f * std::sin(0.1f * static_cast<float>(f)), 0.0123f, 0.f};
      },
      identity, unit_scale);
  FitSettings settings;
  settings.translation_error_m = 0.00005f;
  settings.quantization.range_mode = RangeMode::kFixed;
  const FittedClip fixed = fit_or_fail(s, settings);
  EXPECT_FALSE(fixed.tracks[0].threshold_met);
  EXPECT_GT(fixed.tracks[0].floor, fixed.tracks[0].threshold);
  EXPECT_GT(fixed.tracks[0].max_error, fixed.tracks[0].threshold);
  expect_promise_kept(s.clip, fixed);

  settings.quantization.range_mode = RangeMode::kPerTrack;
  const FittedClip per_track = fit_or_fail(s, settings);
  EXPECT_TRUE(per_track.tracks[0].threshold_met);
  EXPECT_LE(per_track.tracks[0].floor, 0.000002f);
  expect_promise_kept(s.clip, per_track);
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
    EXPECT_EQ(x.quantization.rotation_bits, y.quantization.rotation_bits);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(bits(x.quantization.range_min[c]), bits(y.quantization.range_min[c]));
      EXPECT_EQ(bits(x.quantization.range_extent[c]), bits(y.quantization.range_extent[c]));
    }
    EXPECT_EQ(bits(x.threshold), bits(y.threshold));
    EXPECT_EQ(bits(x.max_error), bits(y.max_error));
    EXPECT_EQ(bits(x.floor), bits(y.floor));
    EXPECT_EQ(x.threshold_met, y.threshold_met);
    EXPECT_EQ(x.discontinuities, y.discontinuities);
    ASSERT_EQ(x.keys.size(), y.keys.size());
    for (size_t k = 0; k < x.keys.size(); ++k) {
      EXPECT_EQ(x.keys[k].frame, y.keys[k].frame);
      EXPECT_EQ(x.keys[k].code, y.keys[k].code);
      EXPECT_EQ(bits(x.keys[k].decoded.frame), bits(y.keys[k].decoded.frame));
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(bits(x.keys[k].decoded.value[c]), bits(y.keys[k].decoded.value[c]));
        EXPECT_EQ(bits(x.keys[k].ideal[c]), bits(y.keys[k].ideal[c]));
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(FitClip, ThreadsGiveTheSameResultAsOneThread) {
  test::RandomClipOptions options;
  options.min_bones = options.max_bones = 6;
  options.min_frames = options.max_frames = 300;
  const test::RandomClip random = test::make_random_clip(4242, options);
  FitSettings settings;
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
std::vector<fs::path> shipped_clip_files() {
  std::vector<fs::path> files;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(KS_CLIPS_DIR, error)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".glb" || ext == ".gltf" || ext == ".bvh") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  files.push_back(fs::path(KS_ASSETS_DIR) / "demo_walk.glb");
  return files;
}

// Every animation of `file`; a failure when one does not import.
std::vector<ImportedClip> import_every_animation(const fs::path& file) {
  std::vector<ImportedClip> clips;
  Result<ImportedClip> first = import_clip(file);
  EXPECT_TRUE(first.ok()) << first.error();
  if (!first.ok()) return clips;
  const size_t count = first.value().animation_names.size();
  clips.push_back(std::move(first.value()));
  for (size_t a = 1; a < count; ++a) {
    ImportSettings settings;
    settings.animation_index = static_cast<int>(a);
    Result<ImportedClip> next = import_clip(file, settings);
    EXPECT_TRUE(next.ok()) << next.error();
    if (next.ok()) clips.push_back(std::move(next.value()));
  }
  return clips;
}

class FitShippedClip : public ::testing::TestWithParam<fs::path> {};

TEST_P(FitShippedClip, DefaultSettingsKeepThePromiseAtEveryFrame) {
  ASSERT_TRUE(fs::exists(GetParam())) << GetParam();
  for (const ImportedClip& imported : import_every_animation(GetParam())) {
    SCOPED_TRACE("animation \"" + imported.clip.name + "\"");
    Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, {}, 4);
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    const int missed = expect_promise_kept(imported.clip, fitted.value());
    // Widening and per-track ranges meet the human-sized defaults on these clips.
    EXPECT_EQ(missed, 0);
    EXPECT_TRUE(fitted.value().thresholds_met());
  }
}

TEST_P(FitShippedClip, LargestErrorSplitNeedsNoMoreKeysThanMidpoint) {
  ASSERT_TRUE(fs::exists(GetParam())) << GetParam();
  for (const ImportedClip& imported : import_every_animation(GetParam())) {
    SCOPED_TRACE("animation \"" + imported.clip.name + "\"");
    size_t keys[2] = {0, 0};
    for (const SplitRule rule : {SplitRule::kLargestError, SplitRule::kMidpoint}) {
      SCOPED_TRACE(to_string(rule));
      FitSettings settings;
      settings.split_rule = rule;
      Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, settings, 4);
      ASSERT_TRUE(fitted.ok()) << fitted.error();
      expect_promise_kept(imported.clip, fitted.value());
      keys[static_cast<int>(rule)] = fitted.value().key_count();
    }
    EXPECT_LE(keys[0], keys[1]) << "largest-error " << keys[0] << " keys, midpoint " << keys[1];
  }
}

std::string clip_test_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(DeveloperClips, FitShippedClip, ::testing::ValuesIn(shipped_clip_files()), clip_test_name);

}  // namespace
}  // namespace ks
