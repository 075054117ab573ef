#include "bench/rate_distortion.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "keystream/codec/key_cost.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/stream_view.h"

namespace ks::bench {

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// "clip \"Walk\" (demo_walk.glb)": what every error names.
std::string clip_label(const ImportedClip& clip) {
  return "clip \"" + clip.clip.name + "\" (" + clip.source.filename().string() + ")";
}

bool positive(float v) {
  return std::isfinite(v) && v > 0.f;
}

}  // namespace

void count_bones_over(const FittedClip& fitted, std::span<const float> bone_error_m,
                      std::span<const uint32_t> bone_worst_frame, std::span<const std::string> bone_names,
                      RateDistortionPoint& point) {
  point.bones_over = 0;
  point.bones_over_without_floor = 0;
  point.bones_over_floor_below_tolerance = 0;
  point.floor_m = 0.f;
  point.worst_bone.clear();
  point.worst_bone_error_m = point.worst_bone_tolerance_m = point.worst_bone_floor_m = 0.f;
  point.worst_bone_frame = 0;
  float worst_ratio = 0.f;
  for (size_t b = 0; b < bone_error_m.size(); ++b) {
    // A bone the fit has no record of cannot have had its floor reported.
    const BoneFit bone = b < fitted.bones.size() ? fitted.bones[b] : BoneFit{};
    const float error = bone_error_m[b];
    if (!(error > bone.tolerance_m)) continue;
    ++point.bones_over;
    // The fit must itself have seen the bone over (it measures what the
    // player decodes) and named the floor that stops it.
    const bool floor_reported = !bone.met() && bone.floor_m > 0.f;
    if (floor_reported) {
      point.floor_m = std::max(point.floor_m, bone.floor_m);
      if (bone.floor_m < bone.tolerance_m) ++point.bones_over_floor_below_tolerance;
    } else {
      ++point.bones_over_without_floor;
    }
    const float ratio = bone.tolerance_m > 0.f ? error / bone.tolerance_m : INFINITY;
    if (point.worst_bone.empty() || ratio > worst_ratio) {
      worst_ratio = ratio;
      point.worst_bone = b < bone_names.size() ? bone_names[b] : "bone " + std::to_string(b);
      point.worst_bone_error_m = error;
      point.worst_bone_tolerance_m = bone.tolerance_m;
      point.worst_bone_floor_m = floor_reported ? bone.floor_m : 0.f;
      point.worst_bone_frame = b < bone_worst_frame.size() ? bone_worst_frame[b] : 0;
    }
  }
}

void count_scalars_over(const FittedClip& fitted, std::span<const TrackError> scalar_errors,
                        RateDistortionPoint& point) {
  point.scalar_tracks = scalar_errors.size();
  point.max_scalar_error = 0.f;
  point.scalars_over = point.scalars_over_without_floor = 0;
  point.worst_scalar.clear();
  point.worst_scalar_error = point.worst_scalar_precision = 0.f;
  point.worst_scalar_frame = 0;
  float worst_ratio = -1.f;
  for (size_t s = 0; s < scalar_errors.size(); ++s) {
    // A track the fit has no record of was promised nothing it can explain.
    const size_t t = fitted.bone_track_count() + s;
    const FittedTrack* track = t < fitted.tracks.size() ? &fitted.tracks[t] : nullptr;
    const float precision = s < fitted.scalars.size() ? fitted.scalars[s].precision : 0.f;
    const float error = scalar_errors[s].max;
    point.max_scalar_error = std::max(point.max_scalar_error, error);
    if (error > precision) {
      ++point.scalars_over;
      // As for bones: the fit must itself have seen the track miss.
      if (track == nullptr || track->threshold_met) ++point.scalars_over_without_floor;
    }
    const float ratio = precision > 0.f ? error / precision : INFINITY;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      point.worst_scalar = s < fitted.scalars.size() ? fitted.scalars[s].name : "scalar " + std::to_string(s);
      point.worst_scalar_error = error;
      point.worst_scalar_precision = precision;
      point.worst_scalar_frame = scalar_errors[s].worst_frame;
    }
  }
}

std::vector<float> default_tolerances_m() {
  return {0.00001f, 0.00003f, 0.0001f, 0.0003f, 0.001f, 0.003f, 0.01f};
}

Result<FitSettings> tolerance_fit_settings(float tolerance_m, float shell_distance_m, RestTracks rest_tracks) {
  if (!positive(tolerance_m)) {
    return Error{"tolerance " + format("%g", double(tolerance_m)) + " m is not a positive number of metres"};
  }
  if (!positive(shell_distance_m)) {
    return Error{"shell distance " + format("%g", double(shell_distance_m)) + " m is not a positive number of metres"};
  }
  FitSettings settings;
  settings.error_mode = ErrorMode::kObjectSpace;
  settings.tolerance_m = tolerance_m;
  settings.shell_distance_m = shell_distance_m;
  settings.rest_tracks = rest_tracks;
  if (Status s = settings.validate(); !s)
    return Error{tolerance_label(tolerance_m, shell_distance_m) + ": " + s.error()};
  return settings;
}

std::string tolerance_label(float tolerance_m, float shell_distance_m) {
  const std::string distance = shell_distance_m < 1.f ? format("%g cm", double(shell_distance_m) * 100.0)
                                                      : format("%g m", double(shell_distance_m));
  return format("%g mm", double(tolerance_m) * 1000.0) + " at " + distance;
}

Result<RateDistortionPoint> measure_point(const ImportedClip& clip, float tolerance_m, float shell_distance_m,
                                          unsigned threads, RestTracks rest_tracks) {
  Result<FitSettings> settings = tolerance_fit_settings(tolerance_m, shell_distance_m, rest_tracks);
  if (!settings) return Error{clip_label(clip) + ": " + settings.error()};
  RateDistortionPoint point;
  point.label = tolerance_label(tolerance_m, shell_distance_m);
  point.tolerance_m = tolerance_m;
  point.shell_distance_m = shell_distance_m;
  const std::string where = clip_label(clip) + " at " + point.label + ": ";

  const auto start = std::chrono::steady_clock::now();
  Result<FittedClip> fitted = fit_clip(clip.skeleton, clip.clip, settings.value(), threads);
  point.fit_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!fitted) return Error{where + fitted.error()};
  point.fit_rounds = fitted.value().rounds;

  // As `keystream compress` packs: the jump interval chosen per clip, the
  // source's name in the metadata, and a zstd twin for its size.
  PackSettings plain_settings = tool_pack_settings();
  plain_settings.source_name = clip.source.filename().string();
  PackSettings zstd_settings = plain_settings;
  zstd_settings.zstd = true;
  Result<std::vector<uint8_t>> plain = pack(fitted.value(), plain_settings);
  if (!plain) return Error{where + plain.error()};
  Result<std::vector<uint8_t>> zstd = pack(fitted.value(), zstd_settings);
  if (!zstd) return Error{where + zstd.error()};
  // A size is only worth reporting for a stream that loads.
  if (Result<StreamView> zstd_view = StreamView::open(zstd.value(), clip.clip.name.c_str()); !zstd_view) {
    return Error{where + zstd_view.error()};
  }
  Result<StreamView> view = StreamView::open(plain.value(), clip.clip.name.c_str());
  if (!view) return Error{where + view.error()};

  // Each bone is measured at its own shell distance, as the fit promises.
  MeasureSettings measure_settings;
  measure_settings.virtual_vertex_distances_m = {kRateDistortionDistances_m[0], kRateDistortionDistances_m[1]};
  for (const BoneFit& bone : fitted.value().bones)
    measure_settings.bone_shell_distance_m.push_back(bone.shell_distance_m);
  Result<ClipMeasurement> result = measure(clip.skeleton, clip.clip, view.value(), measure_settings);
  if (!result) return Error{where + result.error()};
  const ClipMeasurement& m = result.value();
  if (fitted.value().bones.size() != clip.skeleton.bone_count() ||
      m.bone_error_m.size() != clip.skeleton.bone_count()) {
    return Error{where + "the fit or the measurement has no object-space error per bone"};
  }

  point.raw_bytes = m.sizes.raw_bytes;
  point.stream_bytes = m.sizes.compressed_bytes;
  point.metadata_bytes = m.sizes.metadata_bytes;
  point.table_bytes = m.sizes.table_bytes;
  point.key_bytes = m.sizes.key_bytes;
  point.jump_frame_bytes = m.sizes.jump_frame_bytes;
  point.zstd_bytes = zstd.value().size();
  point.key_count = m.sizes.key_count;
  point.bits_per_key = m.sizes.bits_per_key();
  point.ratio = m.sizes.ratio();
  for (size_t c = 0; c < 4; ++c) point.tracks_by_coding[c] = m.sizes.tracks_by_coding[c];
  for (const FittedTrack& track : fitted.value().tracks) {
    if (track.coding != TrackCoding::kAnimated) continue;
    const KeyCoding coding = choose_key_coding(track);
    point.written_key_bits += key_bits(track, coding);
    point.rice_key_bits += rice_key_bits(track, coding);
  }
  for (size_t d = 0; d < 2; ++d) {
    point.max_object_error_m[d] = m.max_object_error[d];
    point.p99_object_error_m[d] = m.p99_object_error[d];
  }
  point.max_joint_position_error_m = m.max_joint_position_error;
  count_bones_over(fitted.value(), m.bone_error_m, m.bone_worst_frame, clip.skeleton.bone_names, point);
  if (m.scalar_tracks.size() != clip.clip.scalars.size()) {
    return Error{where + "the measurement has no error per scalar track"};
  }
  point.scalar_bytes = m.sizes.scalar_bytes;
  count_scalars_over(fitted.value(), m.scalar_tracks, point);
  return point;
}

Result<std::vector<RateDistortionPoint>> sweep_rate_distortion(const ImportedClip& clip,
                                                               std::span<const float> tolerances_m,
                                                               float shell_distance_m, unsigned threads,
                                                               RestTracks rest_tracks) {
  // Refuse a bad tolerance before minutes of fitting the good ones.
  for (const float tolerance : tolerances_m) {
    if (Result<FitSettings> s = tolerance_fit_settings(tolerance, shell_distance_m, rest_tracks); !s) {
      return Error{clip_label(clip) + ": " + s.error()};
    }
  }
  std::vector<RateDistortionPoint> points;
  points.reserve(tolerances_m.size());
  for (const float tolerance : tolerances_m) {
    Result<RateDistortionPoint> point = measure_point(clip, tolerance, shell_distance_m, threads, rest_tracks);
    if (!point) return Error{point.error()};
    points.push_back(std::move(point.value()));
  }
  return points;
}

}  // namespace ks::bench
