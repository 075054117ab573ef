#include "keystream/codec/measure.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "keystream/clip/additive.h"
#include "keystream/clip/excerpt.h"
#include "keystream/codec/fit.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

Status MeasureSettings::validate() const {
  if (virtual_vertex_distances_m.empty()) return Error{"no virtual vertex distance to measure at"};
  for (float d : virtual_vertex_distances_m) {
    if (!std::isfinite(d) || !(d > 0.f)) return Error{"virtual vertex distance must be a positive number of metres"};
  }
  for (float d : bone_shell_distance_m) {
    if (!std::isfinite(d) || !(d > 0.f)) return Error{"shell distance must be a positive number of metres"};
  }
  return {};
}

StreamSizes stream_sizes(const StreamView& stream) {
  StreamSizes sizes;
  size_t scalar_floats = 0;
  for (const StreamTrack& track : stream.scalar_tracks()) scalar_floats += track.components;
  sizes.raw_bytes = size_t{stream.frame_count()} * (size_t{stream.bone_count()} * 10 + scalar_floats) * sizeof(float);
  sizes.compressed_bytes = stream.bytes().size();
  sizes.key_bytes = stream.key_widths().size() + stream.initial_keys().size() + stream.key_stream().size();
  sizes.jump_frame_bytes = stream.jump_frame_bytes();
  sizes.table_bytes = stream.table_bytes();
  sizes.metadata_bytes = sizes.compressed_bytes - sizes.table_bytes - sizes.key_bytes - sizes.jump_frame_bytes;
  uint64_t scalar_bits = 0;
  uint32_t animated = 0;
  for (const StreamTrack& track : stream.tracks()) {
    sizes.key_count += track.key_count;
    sizes.keys_by_kind[static_cast<int>(track.kind)] += track.key_count;
    ++sizes.tracks_by_coding[static_cast<int>(track.coding)];
    const bool is_animated = track.coding == TrackCoding::kAnimated;
    if (is_animated) ++animated;
    if (track.kind != TrackKind::kScalar) continue;
    // The record, then the keys: the run (exact), the segments' widths, and
    // keys 0..2 (counted at the absolute width: Rice codes are about as long).
    scalar_bits += 4 + (is_animated ? 64 : 32u * track.components);
    if (!is_animated) continue;
    const uint32_t coded = static_cast<uint32_t>(track.quantization.coded_count());
    scalar_bits += stream.run_starts()[animated] - stream.run_starts()[animated - 1];
    scalar_bits += uint64_t{segment_count(track.key_count)} * segment_width_bits(track.quantization.coded_mask);
    scalar_bits += uint64_t{std::min(track.key_count, kInitialKeysPerTrack)} * coded * track.key_coding.absolute_bits;
  }
  sizes.scalar_bytes = static_cast<size_t>((scalar_bits + 7) / 8);
  return sizes;
}

Result<ClipMeasurement> measure(const Skeleton& skeleton, const RawClip& clip, const StreamView& stream,
                                const MeasureSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{"measure settings: " + s.error()};
  if (Status s = clip.validate(skeleton); !s) return Error{"clip \"" + excerpt(clip.name) + "\": " + s.error()};
  // Rates may differ by a rounding: a glTF export writes a BVH's 119.9995 Hz
  // as 120 Hz (gltf_export.h), and frame f is still frame f.
  const bool same_rate = std::fabs(stream.sample_rate_hz() - clip.sample_rate_hz) <= 1e-3f * clip.sample_rate_hz;
  if (stream.bone_count() != skeleton.bone_count() || stream.frame_count() != clip.frame_count || !same_rate) {
    return Error{"the stream (" + std::to_string(stream.bone_count()) + " bones, " +
                 std::to_string(stream.frame_count()) + " frames at " + std::to_string(stream.sample_rate_hz()) +
                 " Hz) does not match clip \"" + excerpt(clip.name) + "\" (" + std::to_string(skeleton.bone_count()) +
                 " bones, " + std::to_string(clip.frame_count) + " frames at " + std::to_string(clip.sample_rate_hz) +
                 " Hz)"};
  }
  if (stream.scalar_track_count() != clip.scalars.size()) {
    return Error{"the stream has " + std::to_string(stream.scalar_track_count()) + " scalar tracks, clip \"" +
                 excerpt(clip.name) + "\" has " + std::to_string(clip.scalars.size())};
  }
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    if (stream.scalar_tracks()[s].components != clip.scalars[s].components) {
      return Error{"scalar track " + std::to_string(s) + " has " + std::to_string(stream.scalar_tracks()[s].components) +
                   " components in the stream, " + std::to_string(clip.scalars[s].components) + " in clip \"" +
                   excerpt(clip.name) + "\""};
    }
  }
  if (stream.additive() != clip.additive_base.additive()) {
    return Error{std::string(stream.additive() ? "the stream is additive, clip \"" : "the stream is not additive, clip \"") +
                 excerpt(clip.name) + (clip.additive_base.additive() ? "\" is" : "\" is not") +
                 " (an additive stream is measured on its base)"};
  }
  const size_t bone_count = skeleton.bone_count();
  const uint32_t frame_count = clip.frame_count;
  const bool per_bone = !settings.bone_shell_distance_m.empty();
  if (per_bone && settings.bone_shell_distance_m.size() != bone_count) {
    return Error{"measure settings: " + std::to_string(settings.bone_shell_distance_m.size()) +
                 " shell distances for " + std::to_string(bone_count) + " bones"};
  }
  const size_t distance_count = settings.virtual_vertex_distances_m.size();

  ClipMeasurement m;
  m.sizes = stream_sizes(stream);
  m.tracks.resize(3 * bone_count);
  m.scalar_tracks.resize(clip.scalars.size());
  m.frame_max_track_error.assign(frame_count, {0.f, 0.f, 0.f});
  m.distances_m = settings.virtual_vertex_distances_m;
  m.bone_object_error.assign(distance_count, std::vector<float>(bone_count, 0.f));
  m.frame_object_error.assign(distance_count, std::vector<float>(frame_count, 0.f));
  m.max_object_error.assign(distance_count, 0.f);
  if (per_bone) {
    m.bone_error_m.assign(bone_count, 0.f);
    m.bone_worst_frame.assign(bone_count, 0);
    m.bone_worst_frame_time.assign(bone_count, 0.f);
  }
  std::vector<std::vector<float>> all_object_errors(distance_count);
  for (auto& v : all_object_errors) v.reserve(size_t{frame_count} * bone_count);

  Player player(stream);
  // Each pose is local, then turned into model space in place (local_to_model
  // reads a bone's local transform before replacing it, and parents come
  // first): two arrays per bone rather than four.
  std::vector<Transform> decoded(bone_count), source(bone_count);
  std::vector<float> pose_object_errors(bone_count);
  std::vector<double> track_sums(3 * bone_count, 0.0);
  std::vector<float> scalar_values(player.scalar_value_count());
  std::vector<double> scalar_sums(clip.scalars.size(), 0.0);
  // Each scalar track's largest component difference at frame f.
  const auto measure_scalars = [&](uint32_t f) {
    for (size_t s = 0; s < clip.scalars.size(); ++s) {
      float expected[4], actual[4] = {0.f, 0.f, 0.f, 0.f};
      clip.scalars[s].value_at(f, expected);
      const uint32_t at = player.scalar_value_offset(static_cast<uint32_t>(s));
      for (uint32_t c = 0; c < clip.scalars[s].components; ++c) actual[c] = scalar_values[at + c];
      const float e = track_error(TrackKind::kScalar, expected, actual);
      TrackError& te = m.scalar_tracks[s];
      if (e > te.max) {
        te.max = e;
        te.worst_frame = f;
        te.worst_frame_time = static_cast<float>(f);
      }
      scalar_sums[s] += e;
    }
  };
  // One source pose against the decoded one at frame time `time`: frame f,
  // or (`between`) a source key between frames, reported at its nearest
  // frame and its own time, and kept out of the per-frame, mean and
  // percentile figures, which are about frames.
  const auto measure_pose = [&](uint32_t f, float time, bool between) {
    for (size_t b = 0; b < bone_count; ++b) {
      const Vec3 st = source[b].translation, dt = decoded[b].translation;
      const Quat sr = source[b].rotation, dr = decoded[b].rotation;
      const Vec3 ss = source[b].scale, ds = decoded[b].scale;
      const float src[3][4] = {{st.x, st.y, st.z, 0.f}, {sr.x, sr.y, sr.z, sr.w}, {ss.x, ss.y, ss.z, 0.f}};
      const float dec[3][4] = {{dt.x, dt.y, dt.z, 0.f}, {dr.x, dr.y, dr.z, dr.w}, {ds.x, ds.y, ds.z, 0.f}};
      for (int kind = 0; kind < 3; ++kind) {
        const float e = track_error(static_cast<TrackKind>(kind), src[kind], dec[kind]);
        TrackError& te = m.tracks[3 * b + static_cast<size_t>(kind)];
        if (e > te.max) {
          te.max = e;
          te.worst_frame = f;
          te.worst_frame_time = time;
        }
        if (between) continue;
        track_sums[3 * b + static_cast<size_t>(kind)] += e;
        float& frame_max = m.frame_max_track_error[f][static_cast<size_t>(kind)];
        frame_max = std::max(frame_max, e);
      }
    }
    // Object space: errors of parents carry into their children here, on
    // the composed pose of an additive clip (no key poses: validate()).
    compose_on_base(clip, f, source);
    compose_on_base(clip, f, decoded);
    local_to_model(skeleton.parents, source, source);
    local_to_model(skeleton.parents, decoded, decoded);
    const std::vector<Transform>& source_model = source;
    const std::vector<Transform>& decoded_model = decoded;
    for (size_t b = 0; b < bone_count; ++b) {
      m.max_joint_position_error = std::max(
          m.max_joint_position_error, length(source_model[b].translation - decoded_model[b].translation));
    }
    if (per_bone) {
      object_space_errors(source_model, decoded_model, settings.bone_shell_distance_m, pose_object_errors);
      for (size_t b = 0; b < bone_count; ++b) {
        if (pose_object_errors[b] > m.bone_error_m[b]) {
          m.bone_error_m[b] = pose_object_errors[b];
          m.bone_worst_frame[b] = f;
          m.bone_worst_frame_time[b] = time;
        }
      }
    }
    for (size_t d = 0; d < distance_count; ++d) {
      object_space_errors(source_model, decoded_model, m.distances_m[d], pose_object_errors);
      for (size_t b = 0; b < bone_count; ++b) {
        const float worst = pose_object_errors[b];
        m.bone_object_error[d][b] = std::max(m.bone_object_error[d][b], worst);
        m.max_object_error[d] = std::max(m.max_object_error[d], worst);
        if (between) continue;
        m.frame_object_error[d][f] = std::max(m.frame_object_error[d][f], worst);
        all_object_errors[d].push_back(worst);
      }
    }
  };
  for (uint32_t f = 0; f < frame_count; ++f) {
    player.sample_frame(static_cast<float>(f), decoded, scalar_values);
    measure_scalars(f);
    for (size_t b = 0; b < bone_count; ++b) {
      const BoneTracks& bone = clip.bones[b];
      source[b] = {bone.translations[f], bone.rotations[f], bone.scales[f]};
    }
    measure_pose(f, static_cast<float>(f), false);
  }
  // The file's own keys between frames: a miss there is a miss.
  for (const SourceKeyPose& key : clip.key_poses) {
    player.sample_frame(key.frame_time, decoded);
    source = key.pose;
    measure_pose(static_cast<uint32_t>(std::lround(key.frame_time)), key.frame_time, true);
  }
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    m.scalar_tracks[s].mean = static_cast<float>(scalar_sums[s] / frame_count);
  }
  double kind_sums[3] = {0, 0, 0};
  for (size_t t = 0; t < m.tracks.size(); ++t) {
    m.tracks[t].mean = static_cast<float>(track_sums[t] / frame_count);
    m.max_track_error[t % 3] = std::max(m.max_track_error[t % 3], m.tracks[t].max);
    kind_sums[t % 3] += track_sums[t];
  }
  for (int kind = 0; kind < 3; ++kind) {
    m.mean_track_error[kind] = static_cast<float>(kind_sums[kind] / (double(frame_count) * double(bone_count)));
  }
  for (size_t d = 0; d < distance_count; ++d) {
    std::vector<float>& errors = all_object_errors[d];
    const size_t rank = static_cast<size_t>(std::ceil(0.99 * double(errors.size()))) - 1;
    std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(rank), errors.end());
    m.p99_object_error.push_back(errors[rank]);
  }
  return m;
}

}  // namespace ks
