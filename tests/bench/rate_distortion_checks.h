#pragma once
// What the rate–distortion tests check of every point, shared by the tests
// of bone-only clips (rate_distortion_test.cpp) and of clips with scalar
// tracks (rate_distortion_scalar_test.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include "bench/rate_distortion.h"

namespace ks::bench::checks {

inline constexpr float kAclDefaultTolerance_m = 0.0001f;  // ACL's default: 0.1 mm ...
inline constexpr float kAclDefaultShell_m = 0.03f;        // ... for vertices 3 cm from each bone

inline unsigned test_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

inline ImportedClip import_or_fail(const std::filesystem::path& path) {
  Result<ImportedClip> imported = import_clip(path);
  EXPECT_TRUE(imported.ok()) << imported.error();
  return imported.ok() ? std::move(imported.value()) : ImportedClip{};
}

// Every bone within its tolerance on the decoded stream; with the shell at
// 3 cm (the first measured distance), so is the clip's max error there.
inline void expect_bound_held(const RateDistortionPoint& point) {
  SCOPED_TRACE(point.label);
  EXPECT_EQ(point.bones_over, 0u) << "worst " << point.worst_bone << " " << point.worst_bone_error_m * 1e3f
                                  << " mm at frame " << point.worst_bone_frame;
  EXPECT_EQ(point.bones_over_without_floor, 0u);
  EXPECT_FALSE(point.violation());
  EXPECT_EQ(point.floor_m, 0.f);
  EXPECT_TRUE(point.worst_bone.empty());
  if (point.shell_distance_m == kRateDistortionDistances_m[0]) {
    EXPECT_LE(point.max_object_error_m[0], point.tolerance_m);
  }
}

// Sizes that hold together whatever the clip: the ratio is raw over stream
// bytes, raw is ten float32 per bone-frame, the metadata is part of the
// stream, and bits per key come from a whole number of key bytes that fit in
// the stream without its metadata.
inline void expect_sizes_consistent(const RateDistortionPoint& point, const ImportedClip& clip) {
  SCOPED_TRACE(point.label);
  size_t scalar_floats = 0;
  for (const ScalarTrack& track : clip.clip.scalars) scalar_floats += track.components;
  EXPECT_EQ(point.raw_bytes,
            size_t{clip.clip.frame_count} * (clip.skeleton.bone_count() * 10 + scalar_floats) * sizeof(float));
  ASSERT_GT(point.stream_bytes, 0u);
  EXPECT_DOUBLE_EQ(point.ratio, double(point.raw_bytes) / double(point.stream_bytes));
  EXPECT_GT(point.metadata_bytes, 0u);  // bone names at least
  EXPECT_EQ(point.stream_bytes_without_metadata() + point.metadata_bytes, point.stream_bytes);
  // The parts fit in the stream (the rest is section alignment and the like).
  EXPECT_LE(point.table_bytes + point.key_bytes + point.jump_frame_bytes, point.stream_bytes_without_metadata());
  EXPECT_GT(point.zstd_bytes, 0u);
  EXPECT_EQ(point.tracks_by_coding[0] + point.tracks_by_coding[1] + point.tracks_by_coding[2] +
                point.tracks_by_coding[3],
            3 * clip.skeleton.bone_count() + clip.clip.scalars.size());
  // The bones' and the scalar tracks' parts and the metadata make the stream.
  EXPECT_EQ(point.scalar_tracks, clip.clip.scalars.size());
  EXPECT_EQ(point.bone_bytes() + point.scalar_bytes + point.metadata_bytes, point.stream_bytes);
  EXPECT_NEAR(point.bone_share() + point.scalar_share() + point.stream_share(point.metadata_bytes), 1.0, 1e-12);
  if (clip.clip.scalars.empty()) {
    // A bone-only clip: nothing to report, and the bones are the whole stream an engine needs.
    EXPECT_EQ(point.scalar_bytes, 0u);
    EXPECT_EQ(point.bone_bytes(), point.stream_bytes_without_metadata());
    EXPECT_EQ(point.max_scalar_error, 0.f);
    EXPECT_EQ(point.scalars_over, 0u);
    EXPECT_TRUE(point.worst_scalar.empty());
  } else {
    EXPECT_GT(point.scalar_bytes, 0u);
    EXPECT_GT(point.bone_bytes(), 0u);  // the header at least
    EXPECT_FALSE(point.worst_scalar.empty());
    EXPECT_LE(point.worst_scalar_error, point.max_scalar_error);
  }
  if (point.key_count > 0) {
    const double key_bytes = point.bits_per_key * double(point.key_count) / 8.0;
    EXPECT_NEAR(key_bytes, std::round(key_bytes), 1e-6 * key_bytes);
    EXPECT_LT(key_bytes, double(point.stream_bytes_without_metadata()));
  }
  for (int d = 0; d < 2; ++d) EXPECT_LE(point.p99_object_error_m[d], point.max_object_error_m[d]);
  // Errors of parents carry into children: a vertex further out moves more.
  EXPECT_LE(point.max_object_error_m[0], point.max_object_error_m[1]);
  EXPECT_GE(point.fit_rounds, 1u);
}

// A fitted clip of `n` bones, each with tolerance 1 mm at 3 cm that the fit
// saw met.
inline FittedClip fitted_with_bones(size_t n) {
  FittedClip fitted;
  fitted.bones.resize(n);
  for (BoneFit& bone : fitted.bones) {
    bone.tolerance_m = 0.001f;
    bone.shell_distance_m = 0.03f;
    bone.max_error_m = 0.0005f;
  }
  return fitted;
}

}  // namespace ks::bench::checks
