#include "keystream/codec/fit.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "keystream/clip/additive.h"
#include "keystream/clip/excerpt.h"
#include "keystream/codec/object_space_error.h"
#include "keystream/codec/parallel_for.h"

namespace ks {

namespace {

constexpr float kDegreesPerRadian = 57.29577951308232f;
// Object-space rounds: fit, measure, tighten the chains of bones over.
constexpr uint32_t kMaxRounds = 24;
// The first round fits every track to this many times its share of the
// budget. The split adds every track's worst error at its own worst frame,
// which real clips never reach together: at 1x the shared clips ended 3-5x
// under their tolerance. Tightening goes on inserting keys (cheap), while
// loosening would refit from the start, so the fit starts loose and
// tightens the chains of the bones over. Measured at ACL's errors on the
// shared clips (issue 14 note): 4x gave the fewest bytes or within 2% of
// them on every clip, 6x and 10x took more rounds for no gain.
constexpr float kFirstRoundLoosening = 4.f;
// A track whose error moves a bone's vertices less than this fraction of
// what the largest on its chain does is left alone when that bone is over.
constexpr float kNegligibleShare = 0.05f;
// A bone over lowers its chain's thresholds by 0.9 E / error, within these.
constexpr float kMinTighten = 0.3f;
constexpr float kMaxTighten = 0.9f;
// A bone over that has not fallen below kProgress of its least error for
// kMaxStalledRounds rounds is left where it is (reported with its floor).
constexpr float kProgress = 0.98f;
constexpr uint32_t kMaxStalledRounds = 2;
// Once every bone holds, the tracks whose subtrees are under kLoosenTarget
// of their tolerance by kMinLoosening or more are refitted looser (at most
// kMaxLoosening a pass, kLoosenRounds passes).
constexpr uint32_t kLoosenRounds = 2;
constexpr float kLoosenTarget = 0.9f;
constexpr float kMinLoosening = 1.25f;
constexpr float kMaxLoosening = 2.f;

// Every track's source values, as rows of four floats (vec3 tracks leave
// [3] at 0): track t's frames are rows [t * frames, (t + 1) * frames) of one
// array, its key poses (RawClip::key_poses) likewise of another. One
// allocation each, not two per track: a rig of 50,000 bones has 150,000.
struct TrackSources {
  const RawClip* source = nullptr;
  uint32_t frames = 0;
  size_t key_poses = 0;
  std::vector<Sample> samples;
  std::vector<TimedSample> between;

  std::vector<Sample> rest;  // per track: the skeleton's rest value, where rest tracks may be skipped

  TrackSources(const RawClip& clip, size_t track_count, std::span<const Transform> rest_pose)
      : source(&clip), frames(clip.frame_count), key_poses(clip.key_poses.size()), samples(track_count * frames),
        between(track_count * key_poses), rest(rest_pose.empty() ? 0 : track_count) {
    for (size_t t = 0; t < track_count; ++t) {
      const TrackKind kind = static_cast<TrackKind>(t % 3);
      for (uint32_t f = 0; f < frames; ++f) track_value(clip.bones[t / 3], kind, f, samples[t * frames + f].data());
      for (size_t k = 0; k < key_poses; ++k) {
        TimedSample& row = between[t * key_poses + k];
        row.frame_time = clip.key_poses[k].frame_time;
        track_value(clip.key_poses[k].pose[t / 3], kind, row.value.data());
      }
      if (!rest.empty()) track_value(rest_pose[t / 3], kind, rest[t].data());
    }
  }
  /// A fitter of track t.
  TrackFitter fitter(size_t t, const TrackFitOptions& options) const {
    TrackFitter fitter(static_cast<TrackKind>(t % 3), of(t), options, between_of(t), keys_of(t));
    if (!rest.empty()) fitter.offer_rest_value(rest[t]);
    return fitter;
  }
  std::span<const Sample> of(size_t t) const { return {samples.data() + t * frames, frames}; }
  std::span<const TimedSample> between_of(size_t t) const { return {between.data() + t * key_poses, key_poses}; }
  const SourceKeys* keys_of(size_t t) const { return &source->bones[t / 3].source_keys[t % 3]; }
  /// Not the same value at every frame.
  bool animated(size_t t) const {
    const std::span<const Sample> s = of(t);
    return !std::all_of(s.begin(), s.end(), [&](const Sample& v) { return v == s.front(); });
  }
};

// Track t fitted once to `threshold`, keeping none of the fitter's state.
FittedTrack fit_once(const TrackSources& sources, size_t t, const TrackFitOptions& options, float threshold) {
  TrackFitter fitter = sources.fitter(t, options);
  fitter.fit(threshold);
  return std::move(fitter.track());
}

float local_threshold(TrackKind kind, const FitSettings& s) {
  switch (kind) {
    case TrackKind::kTranslation: return s.translation_error_m;
    case TrackKind::kRotation: return s.rotation_error_deg;
    case TrackKind::kScale: return s.scale_error;
    case TrackKind::kScalar: return s.scalar_precision;
  }
  return 0.f;
}

// A track's error threshold, in its unit, for `share_m` metres at the vertices.
float threshold_for_share(TrackKind kind, float share_m, const BoneLever& lever) {
  switch (kind) {
    case TrackKind::kTranslation: return share_m / std::max(lever.translation, 1e-6f);
    case TrackKind::kRotation:
      return std::min(90.f, share_m / std::max(lever.rotation_m, 1e-9f) * kDegreesPerRadian);
    case TrackKind::kScale: return share_m / std::max(lever.scale_m, 1e-9f);
    case TrackKind::kScalar: break;  // moves no bone
  }
  return 0.f;
}

// The object-space fit: budgets, then rounds of fit, measure, tighten.
class ObjectSpaceFit {
 public:
  ObjectSpaceFit(const Skeleton& skeleton, const RawClip& clip, const BoneTolerances& tolerances,
                 const TrackSources& sources, const TrackFitOptions& options, unsigned threads,
                 FitProgress* progress)
      : m_skeleton(skeleton), m_clip(clip), m_tolerances(tolerances), m_sources(sources), m_options(options),
        m_threads(threads), m_progress(progress), m_bones(skeleton.bone_count()) {}

  /// Fits every track into `tracks` (3 per bone) and returns how each bone
  /// fared; nothing when abandoned (FitProgress).
  std::vector<BoneFit> run(std::vector<FittedTrack>& tracks, uint32_t& rounds) {
    m_tracks = &tracks;
    const size_t track_count = 3 * m_bones;
    // An additive clip is measured composed on its base (DESIGN §3): the
    // source and the levers are the composed clip's.
    std::optional<RawClip> composed;
    const RawClip& reference = m_clip.additive_base.additive() ? composed.emplace(composed_clip(m_clip)) : m_clip;
    m_model = model_space_frames(m_skeleton, reference);
    m_key_model.resize(m_clip.key_poses.size() * m_bones);
    for (size_t k = 0; k < m_clip.key_poses.size(); ++k) {
      local_to_model(m_skeleton.parents, m_clip.key_poses[k].pose,
                     std::span<Transform>(m_key_model.data() + k * m_bones, m_bones));
    }
    m_levers = bone_levers(m_skeleton, reference, m_model, m_tolerances.shell_distance_m);
    scale_levers_by_base();
    composed.reset();
    // Only an animated track keeps a fitter (its state lets tightening go
    // on from where it stopped); the others are fitted straight into
    // `tracks`, again only when they took a value that is not exact (the
    // identity or the rest value) and tightening asks for it.
    std::vector<uint8_t> animated(track_count);
    m_fitter_of.assign(track_count, kNoFitter);
    for (size_t t = 0; t < track_count; ++t) {
      animated[t] = m_sources.animated(t);
      if (!animated[t]) continue;
      m_fitter_of[t] = static_cast<uint32_t>(m_fitters.size());
      m_fitters.push_back(m_sources.fitter(t, m_options));
    }
    const std::vector<float> shares = track_shares(m_skeleton.parents, m_tolerances.tolerance_m, animated);
    m_thresholds.assign(track_count, 0.f);
    m_frozen.assign(track_count, 0);
    m_best_error.assign(m_bones, std::numeric_limits<float>::max());
    m_stalled_rounds.assign(m_bones, 0);
    std::vector<size_t> changed;
    for (size_t t = 0; t < track_count; ++t) {
      const TrackKind kind = static_cast<TrackKind>(t % 3);
      m_thresholds[t] = animated[t] ? kFirstRoundLoosening * threshold_for_share(kind, shares[t / 3], m_levers[t / 3])
                                    : local_threshold(kind, FitSettings{});
      changed.push_back(t);
    }
    m_decoded.assign(track_count * m_clip.frame_count, Sample{});
    std::vector<BoneFit> bones(m_bones);
    for (size_t b = 0; b < m_bones; ++b) {
      bones[b].tolerance_m = m_tolerances.tolerance_m[b];
      bones[b].shell_distance_m = m_tolerances.shell_distance_m[b];
    }
    bool stuck = false;  // no bone over has a track that can get closer, or its error stopped falling
    for (rounds = 1;; ++rounds) {
      if (!parallel_for(changed, m_threads, m_progress, [&](size_t t) { fit_track(t); })) return {};
      measure(bones);
      if (rounds >= kMaxRounds) break;
      changed = tighten(bones);
      stuck = changed.empty();
      if (stuck) break;
    }
    if (std::all_of(bones.begin(), bones.end(), [](const BoneFit& b) { return b.met(); })) {
      for (uint32_t pass = 0; pass < kLoosenRounds; ++pass) {
        if (!loosen(bones, animated)) break;
        if (m_progress != nullptr && m_progress->abandoned()) return {};
        ++rounds;
      }
    }
    // A bone over reports what stops it: its chain's floors through the
    // levers, or, when its chain's tracks are at their floors or its error
    // stopped falling, the error reached (float32 arithmetic along a long
    // chain far from the origin adds to the floors: Fox's spine at 0.01 mm).
    for (size_t b = 0; b < m_bones; ++b) {
      if (bones[b].met()) continue;
      bones[b].floor_m = chain_floor(b);
      if (stuck) bones[b].floor_m = std::max(bones[b].floor_m, bones[b].max_error_m);
    }
    for (size_t t = 0; t < track_count; ++t) {
      if (m_fitter_of[t] != kNoFitter) tracks[t] = std::move(m_fitters[m_fitter_of[t]].track());
    }
    return bones;
  }

 private:
  static constexpr uint32_t kNoFitter = UINT32_MAX;

  const FittedTrack& track(size_t t) const {
    return m_fitter_of[t] == kNoFitter ? (*m_tracks)[t] : m_fitters[m_fitter_of[t]].track();
  }
  TrackFitter& fitter(size_t t) { return m_fitters[m_fitter_of[t]]; }
  std::span<Sample> decoded(size_t t) { return {m_decoded.data() + t * m_clip.frame_count, m_clip.frame_count}; }

  // Fits track t to its threshold and decodes it.
  void fit_track(size_t t) {
    if (m_fitter_of[t] == kNoFitter) {
      (*m_tracks)[t] = fit_once(m_sources, t, m_options, m_thresholds[t]);
    } else {
      fitter(t).fit(m_thresholds[t]);
    }
    decode_track(track(t), decoded(t));
  }

  // A scale ratio's error reaches the composed scale times the base's.
  void scale_levers_by_base() {
    const AdditiveBasePoses& base = m_clip.additive_base;
    if (!base.additive()) return;
    std::vector<float> largest(m_bones, 0.f);
    for (size_t i = 0; i < base.poses.size(); ++i) {
      const Vec3 s = base.poses[i].scale;
      float& l = largest[i % m_bones];
      l = std::max({l, std::fabs(s.x), std::fabs(s.y), std::fabs(s.z)});
    }
    for (size_t b = 0; b < m_bones; ++b) m_levers[b].scale_m *= largest[b];
  }

  // Every bone's largest object-space error over the frames and the key
  // poses (reported at their nearest frame), from the decoded tracks.
  void measure(std::vector<BoneFit>& bones) {
    std::vector<Transform> local(m_bones);  // the decoded pose, local, then model space in place (parents come first)
    std::vector<float> errors(m_bones);
    for (BoneFit& bone : bones) {
      bone.max_error_m = 0.f;
      bone.worst_frame = 0;
    }
    const auto compare = [&](std::span<const Transform> source, uint32_t frame) {
      local_to_model(m_skeleton.parents, local, local);
      object_space_errors(source, local, m_tolerances.shell_distance_m, errors);
      for (size_t b = 0; b < m_bones; ++b) {
        if (errors[b] > bones[b].max_error_m) {
          bones[b].max_error_m = errors[b];
          bones[b].worst_frame = frame;
        }
      }
    };
    for (uint32_t f = 0; f < m_clip.frame_count; ++f) {
      for (size_t b = 0; b < m_bones; ++b) {
        const Sample& t = m_decoded[(3 * b) * m_clip.frame_count + f];
        const Sample& r = m_decoded[(3 * b + 1) * m_clip.frame_count + f];
        const Sample& s = m_decoded[(3 * b + 2) * m_clip.frame_count + f];
        local[b] = {Vec3{t[0], t[1], t[2]}, Quat{r[0], r[1], r[2], r[3]}, Vec3{s[0], s[1], s[2]}};
      }
      compose_on_base(m_clip, f, local);
      compare(std::span<const Transform>(m_model.data() + size_t{f} * m_bones, m_bones), f);
    }
    for (size_t k = 0; k < m_clip.key_poses.size(); ++k) {
      const float time = m_clip.key_poses[k].frame_time;
      for (size_t b = 0; b < m_bones; ++b) {
        Sample t, r, s;
        evaluate_fitted(track(3 * b), time, t.data());
        evaluate_fitted(track(3 * b + 1), time, r.data());
        evaluate_fitted(track(3 * b + 2), time, s.data());
        local[b] = {Vec3{t[0], t[1], t[2]}, Quat{r[0], r[1], r[2], r[3]}, Vec3{s[0], s[1], s[2]}};
      }
      compare(std::span<const Transform>(m_key_model.data() + k * m_bones, m_bones),
              static_cast<uint32_t>(std::lround(time)));
    }
  }

  // Lowers the thresholds on the chain of every bone over its tolerance, in
  // proportion to how far over it is; returns the tracks to fit again.
  std::vector<size_t> tighten(const std::vector<BoneFit>& bones) {
    std::vector<float> factor(3 * m_bones, 1.f);
    for (size_t b = 0; b < m_bones; ++b) {
      if (bones[b].met()) continue;
      // A bone whose error stopped falling is held by what no threshold
      // reaches (float32 arithmetic along its chain): tightening it further
      // only spends keys.
      if (bones[b].max_error_m < kProgress * m_best_error[b]) {
        m_best_error[b] = bones[b].max_error_m;
        m_stalled_rounds[b] = 0;
      } else if (++m_stalled_rounds[b] >= kMaxStalledRounds) {
        continue;
      }
      const float f = std::clamp(0.9f * bones[b].tolerance_m / bones[b].max_error_m, kMinTighten, kMaxTighten);
      // Only the tracks that move b's vertices noticeably, next to the
      // largest that can still shrink (tracks at their coding's floor are
      // out of the comparison): a scale track off by float noise (1e-7)
      // would otherwise be tightened into keys that buy nothing.
      float largest = 0.f;
      for (int32_t a = static_cast<int32_t>(b); a >= 0; a = m_skeleton.parents[static_cast<size_t>(a)]) {
        for (size_t k = 0; k < 3; ++k) {
          const size_t t = 3 * static_cast<size_t>(a) + k;
          if (!at_floor(t)) largest = std::max(largest, contribution_m(t));
        }
      }
      for (int32_t a = static_cast<int32_t>(b); a >= 0; a = m_skeleton.parents[static_cast<size_t>(a)]) {
        for (size_t k = 0; k < 3; ++k) {
          const size_t t = 3 * static_cast<size_t>(a) + k;
          // Only a track with an error can lower it: an animated one, or an
          // exactly constant one that took the identity or its rest value
          // (those are fitted once, at the local thresholds), which falls
          // back to its exact value.
          if (track(t).max_error > 0.f && contribution_m(t) >= kNegligibleShare * largest) {
            factor[t] = std::min(factor[t], f);
          }
        }
      }
    }
    std::vector<size_t> changed;
    for (size_t t = 0; t < factor.size(); ++t) {
      if (factor[t] >= 1.f) continue;
      const FittedTrack& fitted = track(t);
      // A track whose coding cannot get closer gives nothing by refitting.
      const float lowered = std::min(m_thresholds[t], fitted.max_error) * factor[t];
      if (fitted.floor_is_limit && lowered < fitted.floor) continue;
      m_thresholds[t] = lowered;
      changed.push_back(t);
    }
    return changed;
  }

  // Raises the thresholds of the tracks whose whole subtree is well under
  // its tolerance, refits them from the start, and puts back the previous
  // fit of every raised track on the chain of a bone that went over (a
  // bone's error depends on its chain alone, so that restores it). Returns
  // whether any track kept a looser fit.
  bool loosen(std::vector<BoneFit>& bones, const std::vector<uint8_t>& animated) {
    // How far each bone's tolerance allows its chain to loosen, then per
    // bone the least of that over its subtree (children come after parents).
    std::vector<float> allowed(m_bones);
    for (size_t b = 0; b < m_bones; ++b) {
      allowed[b] = bones[b].max_error_m > 0.f ? kLoosenTarget * bones[b].tolerance_m / bones[b].max_error_m
                                              : kMaxLoosening;
    }
    for (size_t b = m_bones; b-- > 0;) {
      if (m_skeleton.parents[b] >= 0) {
        float& up = allowed[static_cast<size_t>(m_skeleton.parents[b])];
        up = std::min(up, allowed[b]);
      }
    }
    std::vector<size_t> raised;
    std::vector<TrackFitter> saved_fitters;
    std::vector<float> saved_thresholds;
    for (size_t t = 0; t < 3 * m_bones; ++t) {
      const float factor = std::min(allowed[t / 3], kMaxLoosening);
      if (!animated[t] || m_frozen[t] || factor < kMinLoosening) continue;
      // A track far under its threshold is held by its coding, not by it.
      if (track(t).max_error < 0.5f * m_thresholds[t]) continue;
      raised.push_back(t);
      saved_fitters.push_back(fitter(t));
      saved_thresholds.push_back(m_thresholds[t]);
      m_thresholds[t] *= factor;
    }
    if (raised.empty()) return false;
    if (!parallel_for(raised, m_threads, m_progress, [&](size_t t) { fit_track(t); })) return false;
    measure(bones);
    std::vector<uint8_t> restored(raised.size(), 0);
    for (bool over = true; over;) {
      over = false;
      for (size_t b = 0; b < m_bones; ++b) {
        if (bones[b].met()) continue;
        over = true;
        for (size_t i = 0; i < raised.size(); ++i) {
          if (restored[i] || !on_chain(raised[i] / 3, b)) continue;
          const size_t t = raised[i];
          fitter(t) = saved_fitters[i];
          m_thresholds[t] = saved_thresholds[i];
          decode_track(track(t), decoded(t));
          m_frozen[t] = 1;
          restored[i] = 1;
        }
      }
      if (over) measure(bones);
    }
    return std::count(restored.begin(), restored.end(), uint8_t{0}) > 0;
  }

  // Whether bone a is b or above it.
  bool on_chain(size_t a, size_t b) const {
    for (int32_t c = static_cast<int32_t>(b); c >= 0; c = m_skeleton.parents[static_cast<size_t>(c)]) {
      if (static_cast<size_t>(c) == a) return true;
    }
    return false;
  }

  // Whether track t is as close as its coding gets (tightening cannot help).
  bool at_floor(size_t t) const {
    const FittedTrack& fitted = track(t);
    return fitted.floor_is_limit && kMaxTighten * fitted.max_error < fitted.floor;
  }

  // Metres track t's largest error can move its bone's vertices, at most.
  float contribution_m(size_t t) const {
    const BoneLever& lever = m_levers[t / 3];
    const float error = track(t).max_error;
    switch (static_cast<TrackKind>(t % 3)) {
      case TrackKind::kTranslation:
        return error * lever.translation;
      case TrackKind::kRotation:
        return error / kDegreesPerRadian * lever.rotation_m;
      case TrackKind::kScale:
        return error * lever.scale_m;
      case TrackKind::kScalar:
        break;  // moves no bone
    }
    return 0.f;
  }

  // Metres the quantization floors of b's chain can leave at its vertices.
  float chain_floor(size_t b) const {
    float sum = 0.f;
    for (int32_t a = static_cast<int32_t>(b); a >= 0; a = m_skeleton.parents[static_cast<size_t>(a)]) {
      const BoneLever& lever = m_levers[static_cast<size_t>(a)];
      auto limit = [&](size_t t) { return track(t).floor_is_limit ? track(t).floor : 0.f; };
      sum += limit(3 * a) * lever.translation;
      sum += limit(3 * a + 1) / kDegreesPerRadian * lever.rotation_m;
      sum += limit(3 * a + 2) * lever.scale_m;
    }
    return sum;
  }

  const Skeleton& m_skeleton;
  const RawClip& m_clip;
  const BoneTolerances& m_tolerances;
  const TrackSources& m_sources;
  TrackFitOptions m_options;
  unsigned m_threads;
  FitProgress* m_progress;  // may be null
  size_t m_bones;
  std::vector<FittedTrack>* m_tracks = nullptr;  // run's output: the tracks fitted once, then all
  std::vector<TrackFitter> m_fitters;            // the animated tracks'
  std::vector<uint32_t> m_fitter_of;             // per track: its index in m_fitters, or kNoFitter
  std::vector<Transform> m_model;              // source, [frame * bones + bone]
  std::vector<Transform> m_key_model;          // source key poses, [key pose * bones + bone]
  std::vector<BoneLever> m_levers;
  std::vector<float> m_thresholds;             // per track, in its unit
  std::vector<uint8_t> m_frozen;               // per track: a looser fit put a bone over
  std::vector<float> m_best_error;             // per bone: least error over the rounds so far
  std::vector<uint32_t> m_stalled_rounds;      // per bone: rounds since it last fell by kProgress
  std::vector<Sample> m_decoded;               // per track, per frame: [track * frames + frame]
};

}  // namespace

const char* to_string(ErrorMode mode) { return mode == ErrorMode::kLocal ? "local" : "object-space"; }

const char* to_string(RestTracks rest_tracks) { return rest_tracks == RestTracks::kSkip ? "skip" : "keep"; }

bool parse_rest_tracks(std::string_view text, RestTracks& out) {
  for (const RestTracks r : {RestTracks::kKeep, RestTracks::kSkip}) {
    if (text == to_string(r)) {
      out = r;
      return true;
    }
  }
  return false;
}

Status FitSettings::validate() const {
  auto positive = [](float v) { return std::isfinite(v) && v > 0.f; };
  if (error_mode != ErrorMode::kObjectSpace && error_mode != ErrorMode::kLocal) {
    return Error{"error mode is neither object-space nor local"};
  }
  if (rest_tracks != RestTracks::kKeep && rest_tracks != RestTracks::kSkip) {
    return Error{"rest tracks are neither kept nor skipped"};
  }
  if (!positive(tolerance_m)) return Error{"tolerance must be a positive number of metres"};
  if (!positive(shell_distance_m)) return Error{"shell distance must be a positive number of metres"};
  for (const BoneTolerance& o : bone_tolerances) {
    if (o.bone.empty()) return Error{"a bone tolerance names no bone"};
    if (!positive(o.tolerance_m)) {
      return Error{"tolerance of bone \"" + excerpt(o.bone) + "\" must be a positive number of metres"};
    }
    if (!std::isfinite(o.shell_distance_m) || o.shell_distance_m < 0.f) {
      return Error{"shell distance of bone \"" + excerpt(o.bone) + "\" must be a positive number of metres"};
    }
  }
  if (!positive(translation_error_m)) return Error{"translation error must be a positive number of metres"};
  if (!positive(rotation_error_deg) || rotation_error_deg >= 180.f) {
    return Error{"rotation error must be a positive number of degrees below 180"};
  }
  if (!positive(scale_error)) return Error{"scale error must be a positive number"};
  if (!positive(scalar_precision)) return Error{"scalar precision must be a positive number"};
  for (const ScalarPrecision& o : scalar_precisions) {
    if (o.track.empty()) return Error{"a scalar precision names no track"};
    if (!positive(o.precision)) {
      return Error{"precision of scalar track \"" + excerpt(o.track) + "\" must be a positive number"};
    }
  }
  if (split_rule != SplitRule::kLargestError && split_rule != SplitRule::kMidpoint) {
    return Error{"split rule is neither largest-error nor midpoint"};
  }
  if (!std::isfinite(discontinuity_ratio) || discontinuity_ratio < 0.f) {
    return Error{"discontinuity ratio must be 0 (off) or a positive number"};
  }
  return {};
}

size_t FittedClip::key_count() const {
  size_t n = 0;
  for (const FittedTrack& t : tracks) n += t.coding == TrackCoding::kAnimated ? t.keys.size() : 0;
  return n;
}

bool FittedClip::thresholds_met() const {
  return std::all_of(tracks.begin(), tracks.end(), [](const FittedTrack& t) { return t.threshold_met; });
}

bool FittedClip::bound_met() const {
  if (settings.error_mode == ErrorMode::kLocal) return thresholds_met();
  const bool scalars_met = std::all_of(tracks.begin() + static_cast<std::ptrdiff_t>(bone_track_count()), tracks.end(),
                                       [](const FittedTrack& t) { return t.threshold_met; });
  return scalars_met && std::all_of(bones.begin(), bones.end(), [](const BoneFit& b) { return b.met(); });
}

Result<FittedClip> fit_clip(const Skeleton& skeleton, const RawClip& clip, const FitSettings& settings,
                            unsigned threads, FitProgress* progress) {
  if (Status s = settings.validate(); !s) return Error{"fit settings: " + s.error()};
  if (Status s = clip.validate(skeleton); !s) return Error{"clip \"" + excerpt(clip.name) + "\": " + s.error()};
  const size_t track_count = 3 * skeleton.bone_count();
  for (size_t t = 0; t < track_count; ++t) {
    const BoneTracks& bone = clip.bones[t / 3];
    if (t % 3 == 1) continue;
    for (const Vec3& v : t % 3 == 0 ? bone.translations : bone.scales) {
      // Codes of a value this large would not fit any step a float holds.
      if (std::fabs(v.x) > 1e30f || std::fabs(v.y) > 1e30f || std::fabs(v.z) > 1e30f) {
        return Error{"clip \"" + excerpt(clip.name) + "\": bone " + std::to_string(t / 3) + " '" +
                     excerpt(skeleton.bone_names[t / 3]) + "' has a value beyond 1e30"};
      }
    }
  }
  BoneTolerances tolerances;
  if (settings.error_mode == ErrorMode::kObjectSpace) {
    Result<BoneTolerances> resolved =
        resolve_bone_tolerances(skeleton, settings.tolerance_m, settings.shell_distance_m, settings.bone_tolerances);
    if (!resolved) return Error{"fit settings: " + resolved.error()};
    tolerances = std::move(resolved.value());
  }
  // Before the bones' fit: a misspelt override should not cost one.
  if (Result<std::vector<float>> p = resolve_scalar_precisions(clip, settings.scalar_precision, settings.scalar_precisions);
      !p) {
    return Error{"fit settings: " + p.error()};
  }

  FittedClip fitted;
  fitted.name = clip.name;
  fitted.sample_rate_hz = clip.sample_rate_hz;
  fitted.frame_count = clip.frame_count;
  fitted.parents = skeleton.parents;
  fitted.bone_names = skeleton.bone_names;
  fitted.settings = settings;
  fitted.additive = {clip.additive_base.kind, clip.additive_base.name};

  // An additive clip's bones hold differences: their rest is the identity.
  const bool skip_rest = settings.rest_tracks == RestTracks::kSkip && clip.additive_base.kind == AdditiveBase::kNone;
  const TrackSources sources(clip, track_count, skip_rest ? std::span<const Transform>(skeleton.rest_pose)
                                                           : std::span<const Transform>());
  const TrackFitOptions options{settings.split_rule, settings.discontinuity_ratio};
  fitted.tracks.resize(track_count);
  if (settings.error_mode == ErrorMode::kLocal) {
    std::vector<size_t> all(track_count);
    for (size_t t = 0; t < track_count; ++t) all[t] = t;
    parallel_for(all, threads, progress, [&](size_t t) {
      fitted.tracks[t] = fit_once(sources, t, options, local_threshold(static_cast<TrackKind>(t % 3), settings));
    });
    fitted.rounds = 1;
  } else {
    ObjectSpaceFit fit(skeleton, clip, tolerances, sources, options, threads, progress);
    fitted.bones = fit.run(fitted.tracks, fitted.rounds);
  }
  if (progress != nullptr && progress->abandoned()) return Error{kFitAbandonedError};
  for (size_t t = 0; t < track_count; ++t) fitted.tracks[t].bone = static_cast<uint32_t>(t / 3);
  if (Status s = fit_scalar_tracks(clip, settings.scalar_precision, settings.scalar_precisions, options, threads,
                                   fitted.tracks, fitted.scalars);
      !s) {
    return Error{"clip \"" + excerpt(clip.name) + "\": " + s.error()};
  }
  return fitted;
}

}  // namespace ks
