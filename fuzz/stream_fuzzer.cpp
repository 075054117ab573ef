// stream_fuzzer: the stream loader's contract (STYLE.md habit 5).
// StreamView::open either refuses the bytes, or a Player decodes the stream at
// any time, seeking either way, without reading out of bounds (ASan) or
// looping. An engine's open (StreamCheck::kFast) does not read the key
// stream, so what it lets through is only played; a stream the full check
// accepts must also decode sane values, the same by any seek (the checks
// below abort, which libFuzzer reports as a crash).

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "keystream/runtime/checksum.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"

namespace {

using namespace ks;

[[noreturn]] void broken(const char* what, size_t bone, double value) {
  std::fprintf(stderr, "stream_fuzzer: %s (bone %zu, value %g)\n", what, bone, value);
  std::abort();
}

// A copy of `bytes` whose total-size and checksum fields match its content.
// Random mutations almost never keep the checksum right; without this every
// mutant would stop at the checksum and the checks behind it would go unfuzzed.
std::vector<uint8_t> with_fixed_checksum(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  const uint32_t size = static_cast<uint32_t>(copy.size());
  std::memcpy(copy.data() + header_offset::kTotalSize, &size, 4);
  const uint32_t checksum = stream_checksum(copy);  // ignores the checksum field itself
  std::memcpy(copy.data() + header_offset::kChecksum, &checksum, 4);
  return copy;
}

// A vec3 component of an animated track stays within the values its codes
// can take (+-kMaxCodeMagnitude steps) widened by the Hermite overshoot:
// h00 + h01 = 1, |h10| and |h11| are at most 4/27 and a tangent at most the
// extent, so 8/27 of the extent either side, plus rounding. A component that
// is not coded, and every component of a constant track, is its stored float
// exactly, or a rest track's the rest pose bound to the player (`bound`).
// Near the float limits the overshoot may round to infinity, which is no
// decoding error.
void check_component(float value, const StreamTrack& track, int c, size_t bone, const float* bound = nullptr) {
  if (std::isnan(value)) broken("decoded vec3 component is NaN", bone, value);
  const TrackQuantization& q = track.quantization;
  if (track.coding != TrackCoding::kAnimated || !q.coded(c)) {
    // A constant track codes no component: all are here.
    const float exact = track.coding == TrackCoding::kRest && bound != nullptr ? bound[c] : q.constant[c];
    if (std::memcmp(&value, &exact, sizeof value) != 0) broken("decoded constant component is not its stored value", bone, value);
    return;
  }
  const double extent = 2.0 * double{q.step} * kMaxCodeMagnitude;
  const double lo = -0.5 * extent;
  const double slack = 0.3 * extent + 1e-5 * (std::fabs(lo) + extent) + 1e-30;
  const double low = lo - slack, high = lo + extent + slack;
  if (low < -FLT_MAX || high > FLT_MAX) return;
  if (!(value >= low && value <= high)) broken("decoded vec3 component is outside its track's code range", bone, value);
}

void check_vec3(Vec3 v, const StreamTrack& track, size_t bone, const Vec3* bound) {
  const float bound_values[3] = {bound ? bound->x : 0.f, bound ? bound->y : 0.f, bound ? bound->z : 0.f};
  const float* rest = bound ? bound_values : nullptr;
  check_component(v.x, track, 0, bone, rest);
  check_component(v.y, track, 1, bone, rest);
  check_component(v.z, track, 2, bone, rest);
}

// Each scalar track's components as check_component checks a vec3's; a
// scalar track's values past its count are never written.
void check_scalars(const StreamView& view, const Player& player, std::span<const float> values) {
  const std::span<const StreamTrack> tracks = view.scalar_tracks();
  for (uint32_t s = 0; s < tracks.size(); ++s) {
    const uint32_t at = player.scalar_value_offset(s);
    for (int c = 0; c < tracks[s].components; ++c) check_component(values[at + static_cast<uint32_t>(c)], tracks[s], c, s);
  }
}

// `rest`: the rest pose bound to the player, or empty.
void check_pose(const StreamView& view, std::span<const Transform> pose, std::span<const Transform> rest) {
  for (size_t b = 0; b < pose.size(); ++b) {
    const Quat q = pose[b].rotation;
    if (!is_finite(q)) broken("decoded rotation is not finite", b, q.w);
    if (!(std::fabs(length(q) - 1.f) <= 1e-3f)) broken("decoded rotation is not a unit quaternion", b, length(q));
    check_vec3(pose[b].translation, view.tracks()[3 * b], b, rest.empty() ? nullptr : &rest[b].translation);
    check_vec3(pose[b].scale, view.tracks()[3 * b + 2], b, rest.empty() ? nullptr : &rest[b].scale);
  }
}

// Numerical Recipes' LCG: times that depend on the input but not on the run.
struct Lcg {
  uint32_t state;
  float unit() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.f;
  }
};

// Two players of one stream: `player` (with a key cache when the stream's
// keys fit the default limit) visits times in the order given, seeking back
// and forth and playing on; `reference` reads the stream and comes to each
// from frame 0. Jump frames and the key cache promise both decode the same
// pose, bit for bit.
struct Players {
  const StreamView& view;
  bool checked;  // the stream passed StreamCheck::kFull: its values are checked too
  Player player{view};
  Player reference{view, 0};
  std::vector<Transform> pose = std::vector<Transform>(view.bone_count());
  std::vector<Transform> expected = std::vector<Transform>(view.bone_count());
  std::vector<Transform> model = std::vector<Transform>(view.bone_count());
  std::vector<float> scalars = std::vector<float>(player.scalar_value_count());
  std::vector<float> expected_scalars = std::vector<float>(player.scalar_value_count());
  std::vector<Transform> rest = {};  // the rest pose bound to both players, once bound

  void compare(float frame_time) {
    if (checked) {
      check_pose(view, pose, rest);
      check_scalars(view, player, scalars);
    }
    reference.sample_frame(0.f, expected, expected_scalars);
    reference.sample_frame(frame_time, expected, expected_scalars);
    local_to_model(view.parents(), pose, model);
    if (!checked) return;
    if (std::memcmp(pose.data(), expected.data(), pose.size() * sizeof(Transform)) != 0) {
      broken("a seek decoded another pose than playing from frame 0", 0, frame_time);
    }
    if (std::memcmp(scalars.data(), expected_scalars.data(), scalars.size() * sizeof(float)) != 0) {
      broken("a seek decoded other scalar values than playing from frame 0", 0, frame_time);
    }
    for (size_t b = 0; b < model.size(); ++b) {
      if (!is_finite(model[b].rotation)) broken("model-space rotation is not finite", b, model[b].rotation.w);
    }
  }
  void visit_frame(float frame_time) {
    player.sample_frame(frame_time, pose, scalars);
    compare(frame_time);
  }
  void visit_seconds(float t_seconds) {
    const float frame_time = player.frame_time_at(t_seconds);
    if (!(frame_time >= 0.f && frame_time <= static_cast<float>(view.last_frame()))) {
      broken("frame_time_at left the clip", 0, frame_time);
    }
    player.sample(t_seconds, pose, scalars);
    compare(frame_time);
  }
};

void play(const StreamView& view, uint32_t seed, bool checked) {
  Players players{view, checked};
  Lcg rng{seed};
  const float last = static_cast<float>(view.last_frame());
  const float duration = view.duration_s();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();

  // Forward in uneven steps (the last ones run past the end), then back.
  float t = 0.f;
  players.visit_frame(t);
  for (int i = 0; i < 4; ++i) players.visit_frame(t += rng.unit() * last / 3.f);
  players.visit_frame(rng.unit() * t);
  players.visit_frame(rng.unit() * last);
  // Play on from a random frame, a frame or two a step.
  t = rng.unit() * last;
  for (int i = 0; i < 6; ++i) players.visit_frame(t += 1.f + static_cast<float>(i % 2));
  players.player.seek_frame(rng.unit() * last);
  for (float edge : {last, last + 1.5f, -2.5f, nan, inf, -inf, 0.5f}) players.visit_frame(edge);
  // An engine binds its rest pose midway: both players take it.
  players.rest.resize(view.bone_count());
  for (Transform& r : players.rest) r.translation = {rng.unit(), rng.unit(), rng.unit()};
  if (!players.player.set_rest_pose(players.rest) || !players.reference.set_rest_pose(players.rest)) {
    broken("set_rest_pose refused a pose of the stream's bone count", 0, 0.f);
  }
  players.visit_frame(rng.unit() * last);

  // Seconds, clamped and then wrapped.
  for (bool looping : {false, true}) {
    players.player.set_looping(looping);
    for (float s :
         {(3.f * rng.unit() - 1.f) * duration, -0.25f * duration, 2.5f * duration, duration, nan, 1e30f, -inf}) {
      players.visit_seconds(s);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  std::span<const uint8_t> bytes = input;
  Result<StreamView> view = StreamView::open(bytes, "fuzz");
  std::vector<uint8_t> fixed;  // outlives the views that may borrow it
  if (!view && size >= kHeaderSize) {
    fixed = with_fixed_checksum(input);
    if (std::memcmp(fixed.data(), data, size) != 0) {
      bytes = fixed;
      view = StreamView::open(bytes, "fuzz");
    }
  }
  if (!view) {
    // What the fast check refuses, the full one must refuse too.
    if (StreamView::open(bytes, "fuzz", StreamCheck::kFull)) broken("the full check accepted what the fast one refused", 0, 0);
    return 0;
  }
  const uint32_t seed = stream_checksum(bytes);
  play(view.value(), seed, /*checked=*/false);
  if (const Result<StreamView> full = StreamView::open(bytes, "fuzz", StreamCheck::kFull)) play(full.value(), seed, true);
  return 0;
}
