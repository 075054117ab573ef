// The Curves panel's sampling (curve_panel.h): the shown track's source, fitted and decoded curves, keys and errors
// over frames in display units, rotations also as Euler angles, rebuilt when the result, bone or kind changes.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/studio/panels/curve_panel.h"
#include "app/studio/plots/curve_label.h"
#include "app/studio/plots/rotation_angles.h"
#include "keystream/codec/fit.h"

namespace ks::studio {

namespace {

// Curve points per source frame: enough to show the curve's shape between
// frames when zoomed in, bounded so a long clip stays near 16k points a curve.
int points_per_frame(uint32_t frame_count) {
  return std::clamp(16000 / std::max(static_cast<int>(frame_count), 1), 4, 16);
}

// q and -q are one rotation, but their components plot far apart: brings
// `q` into the hemisphere of `reference`.
void align_to(const float reference[4], float q[4]) {
  if (reference[0] * q[0] + reference[1] * q[1] + reference[2] * q[2] + reference[3] * q[3] < 0.f) {
    for (int c = 0; c < 4; ++c) q[c] = -q[c];
  }
}

}  // namespace

const FittedTrack& CurvePanel::fitted_track(const FittedClip& fitted, int bone, TrackKind kind) {
  const size_t b = static_cast<size_t>(bone);
  return fitted.tracks[kind == TrackKind::kScalar ? fitted.bone_track_count() + b : 3 * b + static_cast<size_t>(kind)];
}

bool CurvePanel::is_cached(const std::shared_ptr<const FitResult>& result, int bone, TrackKind kind) const {
  const bool same_result =
      !m_curves.result.expired() && !m_curves.result.owner_before(result) && !result.owner_before(m_curves.result);
  return same_result && m_curves.generation == result->generation && m_curves.bone == bone && m_curves.kind == kind;
}

void CurvePanel::sample_curves(const std::shared_ptr<const FitResult>& result, int bone, TrackKind kind) {
  if (bone != m_curves.bone || kind != m_curves.kind) fit_y();  // other values, other y range
  Curves& c = m_curves;
  ++m_samples_version;  // the plots' buffers are refilled in place: what they keep is stale
  c.result = result;
  c.generation = result->generation;
  c.bone = bone;
  c.kind = kind;
  const FittedTrack& track = fitted_track(result->fitted, bone, kind);
  const RawClip& clip = result->clip->clip;
  const uint32_t frame_count = clip.frame_count;
  const bool scalar = kind == TrackKind::kScalar;
  const int components =
      scalar ? static_cast<int>(result->fitted.scalars[static_cast<size_t>(bone)].components) : component_count(kind);
  c.components = components;
  c.morph_weight = scalar && result->fitted.scalars[static_cast<size_t>(bone)].target == ScalarTarget::kMorphWeight;
  const float scale = display_scale(kind);
  const int per_frame = points_per_frame(frame_count);
  const size_t point_count = static_cast<size_t>(frame_count - 1) * static_cast<size_t>(per_frame) + 1;

  c.curve_x.resize(point_count);
  for (int k = 0; k < 4; ++k) {
    c.ideal[k].resize(k < components ? point_count : 0);
    c.decoded[k].resize(k < components ? point_count : 0);
    c.source[k].resize(k < components ? frame_count : 0);
    c.key_values[k].resize(k < components ? track.keys.size() : 0);
  }
  for (size_t i = 0; i < point_count; ++i) {
    // i / per_frame is exact at whole frames, so those points sit on the samples.
    const float t = static_cast<float>(i) / static_cast<float>(per_frame);
    float ideal[4], decoded[4];
    evaluate_fitted(track, t, decoded);
    evaluate_ideal(track, t, ideal);
    if (kind == TrackKind::kRotation) align_to(decoded, ideal);
    c.curve_x[i] = t;
    for (int k = 0; k < components; ++k) {
      c.ideal[k][i] = ideal[k] * scale;
      c.decoded[k][i] = decoded[k] * scale;
    }
  }

  c.frames.resize(frame_count);
  c.total_error.resize(frame_count);
  c.fit_error.resize(frame_count);
  c.quantization_error.resize(frame_count);
  for (uint32_t f = 0; f < frame_count; ++f) {
    const float t = static_cast<float>(f);
    float sample[4], ideal[4], decoded[4];
    if (scalar) {
      clip.scalars[static_cast<size_t>(bone)].value_at(f, sample);
    } else {
      track_value(clip.bones[static_cast<size_t>(bone)], kind, f, sample);
    }
    evaluate_fitted(track, t, decoded);
    evaluate_ideal(track, t, ideal);
    c.frames[f] = t;
    c.total_error[f] = track_error(kind, sample, decoded) * scale;
    c.fit_error[f] = track_error(kind, sample, ideal) * scale;
    c.quantization_error[f] = track_error(kind, ideal, decoded) * scale;
    if (kind == TrackKind::kRotation) align_to(decoded, sample);
    for (int k = 0; k < components; ++k) c.source[k][f] = sample[k] * scale;
  }

  c.key_frames.resize(track.keys.size());
  for (size_t i = 0; i < track.keys.size(); ++i) {
    c.key_frames[i] = static_cast<float>(track.keys[i].frame);
    // Decoded values are hemisphere-aligned key to key, as the player holds them.
    for (int k = 0; k < components; ++k) c.key_values[k][i] = track.keys[i].decoded.value[k] * scale;
  }
  // The source's keys, to see which the fit kept (docs/curves.md).
  const SourceKeys& source_keys = track_source_keys(clip, static_cast<uint32_t>(bone), kind);
  c.source_key_frames.clear();
  if (source_keys.keyed()) {
    for (uint32_t frame : source_keys.frames) c.source_key_frames.push_back(static_cast<float>(frame));
  }
  c.curve_label = curve_label(track, source_keys);
  sample_euler_angles(track, per_frame);
}

void CurvePanel::sample_euler_angles(const FittedTrack& track, int per_frame) {
  Curves& c = m_curves;
  const bool rotation = c.kind == TrackKind::kRotation;
  for (int a = 0; a < 3; ++a) {
    c.euler_source[a].resize(rotation ? c.frames.size() : 0);
    c.euler_ideal[a].resize(rotation ? c.curve_x.size() : 0);
    c.euler_decoded[a].resize(rotation ? c.curve_x.size() : 0);
    c.euler_keys[a].resize(rotation ? c.key_frames.size() : 0);
  }
  if (!rotation || c.curve_x.empty()) return;
  const auto to_euler = [](const std::array<std::vector<float>, 4>& q, size_t i,
                           std::array<std::vector<float>, 3>& out) {
    const float value[4] = {q[0][i], q[1][i], q[2][i], q[3][i]};
    const std::array<float, 3> e = euler_xyz_degrees(value);
    for (size_t a = 0; a < 3; ++a) out[a][i] = e[a];
  };
  for (size_t i = 0; i < c.curve_x.size(); ++i) {
    to_euler(c.decoded, i, c.euler_decoded);
    to_euler(c.ideal, i, c.euler_ideal);
  }
  for (size_t f = 0; f < c.frames.size(); ++f) to_euler(c.source, f, c.euler_source);
  for (size_t i = 0; i < c.key_frames.size(); ++i) to_euler(c.key_values, i, c.euler_keys);
  for (size_t a = 0; a < 3; ++a) {
    unwrap_degrees(c.euler_decoded[a], c.euler_decoded[a][0]);
    unwrap_degrees(c.euler_ideal[a], c.euler_decoded[a][0]);
    unwrap_degrees(c.euler_source[a], c.euler_decoded[a][0]);
    // Each key on the decoded curve's turn where it sits (whole frames are every per_frame-th point).
    for (size_t i = 0; i < c.key_frames.size(); ++i) {
      const size_t point =
          std::min(static_cast<size_t>(track.keys[i].frame) * static_cast<size_t>(per_frame), c.curve_x.size() - 1);
      c.euler_keys[a][i] = nearest_turn(c.euler_keys[a][i], c.euler_decoded[a][point]);
    }
  }
}

}  // namespace ks::studio
