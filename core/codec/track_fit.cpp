#include "keystream/codec/track_fit.h"

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

// The decoded value at frame time `t` of segment i (keys i and i+1, both key
// 0 for a one-key track), with the neighbours clamped at the ends as in the
// player's window. Rotations come out normalised, as the player returns them:
// track_error normalises again, and a float normalisation is not idempotent,
// so measuring an unnormalised value could differ in its last bits from the
// error measured on the player's output.
//
// A segment measured at many times builds its coefficients once
// (key_segment_coefficients, then evaluate_key_coefficients): the same two
// steps evaluate_segment takes, so the same bits, without rebuilding them
// per frame (long mocap measures thousands of frames per segment build).
SegmentCoefficients key_segment_coefficients(std::span<const FittedKey> keys, size_t i, TrackKind kind,
                                             Interpolation interpolation) {
  const size_t last = keys.size() - 1;
  const CurveKey& prev = keys[i > 0 ? i - 1 : 0].decoded;
  const CurveKey& next = keys[std::min(i + 2, last)].decoded;
  return segment_coefficients(prev, keys[i].decoded, keys[std::min(i + 1, last)].decoded, next, component_count(kind),
                              interpolation, kind == TrackKind::kRotation);
}

void evaluate_key_coefficients(const SegmentCoefficients& s, float t, TrackKind kind, float out[4]) {
  evaluate_coefficients(s, t, component_count(kind), out);
  if (kind == TrackKind::kRotation) normalize_rotation(out);
}

void evaluate_key_segment(const FittedTrack& track, size_t i, float t, float out[4]) {
  evaluate_key_coefficients(key_segment_coefficients(track.keys, i, track.kind, track.interpolation), t, track.kind,
                            out);
}

// The segment frame time t falls in: the one starting at the last key at or
// before t (the right key at a discontinuity); at or past the last key, the
// final segment.
size_t segment_at(const std::vector<FittedKey>& keys, float t) {
  size_t i = static_cast<size_t>(
      std::upper_bound(keys.begin(), keys.end(), t, [](float v, const FittedKey& k) { return v < k.frame; }) -
      keys.begin());
  i = i > 0 ? i - 1 : 0;
  if (keys.size() >= 2 && i >= keys.size() - 1) i = keys.size() - 2;
  return i;
}

}  // namespace

const char* to_string(SplitRule rule) { return rule == SplitRule::kMidpoint ? "midpoint" : "largest-error"; }

bool is_identity_value(TrackKind kind, const float* value) {
  switch (kind) {
    case TrackKind::kTranslation: return value[0] == 0.f && value[1] == 0.f && value[2] == 0.f;
    case TrackKind::kRotation: return value[0] == 0.f && value[1] == 0.f && value[2] == 0.f && value[3] == 1.f;
    case TrackKind::kScale: return value[0] == 1.f && value[1] == 1.f && value[2] == 1.f;
    case TrackKind::kScalar: return value[0] == 0.f && value[1] == 0.f && value[2] == 0.f && value[3] == 0.f;
  }
  return false;
}

TrackFitter::TrackFitter(TrackKind kind, std::span<const Sample> samples, const TrackFitOptions& options,
                         std::span<const TimedSample> between, const SourceKeys* source_keys)
    : m_kind(kind), m_samples(samples), m_between(between), m_options(options) {
  m_track.kind = kind;
  // Keys that do not run from the first frame to the last in order are no
  // curve of this track: the fit keeps none of them.
  if (source_keys != nullptr && source_keys->keyed() && source_keys->frames.front() == 0 &&
      source_keys->frames.back() + 1 == samples.size() &&
      std::adjacent_find(source_keys->frames.begin(), source_keys->frames.end(), std::greater_equal<uint32_t>()) ==
          source_keys->frames.end()) {
    m_source_frames = source_keys->frames;
    m_source_interpolation = source_keys->interpolation;
  }
}

void TrackFitter::fit(float threshold) {
  // A source-keyed track fits both curves again: which needs fewer keys
  // can change as the threshold tightens (Hermite through Fox#Run's first
  // rounds, then more keys than the source has).
  const bool tighten_only = m_fitted && m_track.coding == TrackCoding::kAnimated && threshold <= m_threshold &&
                            m_track.floor <= 0.9f * threshold && m_source_frames.empty();
  m_threshold = threshold;
  m_track.threshold = threshold;
  if (tighten_only) {
    refine();
    finish();
    return;
  }
  fit_from_start();
  m_fitted = true;
}

void TrackFitter::fit_from_start() {
  clear_keys(Interpolation::kHermite);
  m_track.floor = 0.f;
  m_track.floor_is_limit = false;
  m_track.quantization = {};
  if (try_constant()) {
    finish();
    return;
  }
  m_track.coding = TrackCoding::kAnimated;
  const ChosenQuantization chosen =
      choose_quantization(m_kind, m_samples, m_options.key_error_share * m_threshold);
  m_track.quantization = chosen.quantization;
  m_track.floor = chosen.floor;
  m_track.floor_is_limit = chosen.floor > m_options.key_error_share * m_threshold;
  // The source's own keys and interpolation, when they meet the threshold
  // with fewer keys than a Hermite curve (docs/curves.md).
  if (!m_source_frames.empty()) {
    fit_curve(m_source_interpolation);
    const size_t keyed_keys = m_track.threshold_met ? m_track.keys.size() : SIZE_MAX;
    fit_curve(Interpolation::kHermite);
    if (keyed_keys < m_track.keys.size()) fit_curve(m_source_interpolation);
    return;
  }
  fit_curve(Interpolation::kHermite);
}

void TrackFitter::clear_keys(Interpolation interpolation) {
  m_track.keys.clear();
  m_track.discontinuities = 0;
  m_track.interpolation = interpolation;
  m_pool.clear();
  m_next.clear();
  m_prev.clear();
  m_segment_error.clear();
  m_segment_worst.clear();
  m_heap.clear();
}

void TrackFitter::fit_curve(Interpolation interpolation) {
  clear_keys(interpolation);
  place_initial_keys();
  refine();
  finish();
}

FittedKey TrackFitter::make_key(uint16_t frame, const float* value) const {
  FittedKey key;
  key.frame = frame;
  std::copy(value, value + 4, key.ideal);
  quantize_key(m_kind, m_track.quantization, value, key.codes);
  key.decoded = decode_key(m_kind, m_track.quantization, key.codes, frame);
  return key;
}

// Error of a decoded key standing alone at a frame (the value the player
// returns at a key's own frame, normalised as the player normalises it).
float TrackFitter::key_error(const CurveKey& decoded, size_t frame) const {
  float value[4] = {decoded.value[0], decoded.value[1], decoded.value[2], decoded.value[3]};
  if (m_kind == TrackKind::kRotation) normalize_rotation(value);
  return track_error(m_kind, m_samples[frame].data(), value);
}

// A track that one value represents within the threshold is constant: that
// float32 value, returned as it is (an exactly constant track decodes to its
// source bit for bit, unless the rest value takes it). The identity and the
// rest value cost nothing in the stream, so they are tried first; then the
// first sample, then the centre of the samples.
bool TrackFitter::try_constant() {
  const Sample& first = m_samples.front();
  const bool exact = std::all_of(m_samples.begin(), m_samples.end(), [&](const Sample& s) { return s == first; });
  Sample identity{0.f, 0.f, 0.f, 0.f};
  if (m_kind == TrackKind::kRotation) identity[3] = 1.f;
  if (m_kind == TrackKind::kScale) identity = {1.f, 1.f, 1.f, 0.f};
  Sample centre{};
  if (m_kind == TrackKind::kRotation) {
    centre = mean_rotation(m_samples);
  } else {
    for (int c = 0; c < component_count(m_kind); ++c) {
      float lo = first[c], hi = first[c];
      for (const Sample& s : m_samples) {
        lo = std::min(lo, s[c]);
        hi = std::max(hi, s[c]);
      }
      centre[c] = lo + 0.5f * (hi - lo);
    }
  }
  auto within = [&](const Sample& value) {
    for (size_t f = 0; f < m_samples.size(); ++f) {
      if (track_error(m_kind, m_samples[f].data(), value.data()) > m_threshold) return false;
    }
    return true;
  };
  const Sample* chosen = nullptr;
  const Sample* rest = m_rest ? &*m_rest : nullptr;
  if (exact) {
    // Free values first: the identity (needs no rest pose), then the rest.
    chosen = is_identity_value(m_kind, first.data()) || rest == nullptr ? &first
             : within(identity)                                         ? &identity
             : within(*rest)                                            ? rest
                                                                        : &first;
  } else {
    for (const Sample* candidate : std::array<const Sample*, 4>{&identity, rest, &first, &centre}) {
      if (candidate != nullptr && within(*candidate)) {
        chosen = candidate;
        break;
      }
    }
  }
  if (chosen == nullptr) return false;
  m_track.keys.clear();
  m_track.quantization = TrackQuantization{};
  std::copy(chosen->begin(), chosen->end(), m_track.quantization.constant);
  m_track.coding = is_identity_value(m_kind, chosen->data()) ? TrackCoding::kIdentity
                   : chosen == rest                           ? TrackCoding::kRest
                                                              : TrackCoding::kConstant;
  return true;
}

// End keys and both keys of every discontinuity.
void TrackFitter::place_initial_keys() {
  const size_t last = m_samples.size() - 1;
  uint32_t newest = append_key(make_key(0, m_samples[0].data()), kNoKey);
  std::vector<float> steps(m_samples.size(), 0.f);  // steps[f]: change from frame f-1 to f
  for (size_t f = 1; f <= last; ++f) steps[f] = track_error(m_kind, m_samples[f - 1].data(), m_samples[f].data());
  // A source-keyed curve keeps the source's keys alone.
  const float ratio = m_track.interpolation == Interpolation::kHermite ? m_options.discontinuity_ratio : 0.f;
  for (size_t f = 1; ratio > 0.f && f <= last; ++f) {
    const float before = f >= 2 ? steps[f - 1] : 0.f;
    const float after = f < last ? steps[f + 1] : 0.f;
    // A jump of up to two thresholds a curve through its middle absorbs;
    // past that, two keys at its frame cost less than keys bending to it
    // (at loose tolerances a 20-threshold floor left steps to the bending).
    if (steps[f] <= 2.f * m_threshold || steps[f] <= ratio * std::max(before, after)) continue;
    // The left key continues the motion before the jump to the jump's
    // frame; no source frame reads it, so its value is free.
    Sample left = m_samples[f - 1];
    if (f >= 2) {
      for (int c = 0; c < 4; ++c) left[c] = 2.f * m_samples[f - 1][c] - m_samples[f - 2][c];
      if (m_kind == TrackKind::kRotation) normalize_rotation(left.data());
    }
    newest = append_key(make_key(static_cast<uint16_t>(f), left.data()), newest);
    newest = append_key(make_key(static_cast<uint16_t>(f), m_samples[f].data()), newest);
    ++m_track.discontinuities;
  }
  if (m_pool[newest].frame != last) {
    newest = append_key(make_key(static_cast<uint16_t>(last), m_samples[last].data()), newest);
  }
  if (m_next[0] != kNoKey) align_from(m_next[0], /*until_unchanged=*/false);
  for (uint32_t k = 0; m_next[k] != kNoKey; k = m_next[k]) {
    measure_segment(k);
    push_segment(k);
  }
}

// Adds `key` to the pool and links it in after key `after` (kNoKey: as the
// first); returns its index.
uint32_t TrackFitter::append_key(const FittedKey& key, uint32_t after) {
  const uint32_t k = static_cast<uint32_t>(m_pool.size());
  m_pool.push_back(key);
  const uint32_t before = after == kNoKey ? kNoKey : m_next[after];
  m_prev.push_back(after);
  m_next.push_back(before);
  if (after != kNoKey) m_next[after] = k;
  if (before != kNoKey) m_prev[before] = k;
  m_segment_error.push_back(0.f);
  m_segment_worst.push_back(0);
  return k;
}

// Re-applies the player's hemisphere fix from key `first` on. After an
// insertion the keys beyond were aligned already, so the chain can stop at
// the first key whose sign does not change (`until_unchanged`).
void TrackFitter::align_from(uint32_t first, bool until_unchanged) {
  if (m_kind != TrackKind::kRotation) return;
  for (uint32_t k = first; k != kNoKey; k = m_next[k]) {
    if (m_prev[k] == kNoKey) continue;  // the first key has nothing to align with
    CurveKey fixed = decode_key(m_kind, m_track.quantization, m_pool[k].codes, m_pool[k].frame);
    align_hemisphere(m_pool[m_prev[k]].decoded, fixed);
    const bool unchanged = std::equal(fixed.value, fixed.value + 4, m_pool[k].decoded.value);
    m_pool[k].decoded = fixed;
    if (until_unchanged && unchanged && k != first) break;
  }
}

// Largest error over the source frames and keys between frames strictly
// inside segment i, and the frame to split it at: that of the worst frame,
// or the frame inside nearest the worst key between frames. A key between
// the two frames of a one-frame segment is what no key at a frame can bring
// closer: its error counts, and the segment is not split (split frame =
// its first).
void TrackFitter::measure_segment(uint32_t key) {
  // Its neighbours clamped at the ends of the track, as in the player's window.
  const uint32_t after = m_next[key];
  const uint32_t outer_before = m_prev[key] == kNoKey ? key : m_prev[key];
  const uint32_t outer_after = m_next[after] == kNoKey ? after : m_next[after];
  const uint32_t from = m_pool[key].frame;
  const uint32_t to = m_pool[after].frame;
  float worst = 0.f;
  uint32_t worst_frame = from;
  const SegmentCoefficients segment =
      segment_coefficients(m_pool[outer_before].decoded, m_pool[key].decoded, m_pool[after].decoded,
                           m_pool[outer_after].decoded, component_count(m_kind), m_track.interpolation,
                           m_kind == TrackKind::kRotation);
  // A source-keyed curve splits at the source key of largest error inside;
  // with none inside (a rotation turning too far between two keys for the
  // bent linear segment), at the frame of largest error, as Hermite does.
  const bool keyed = m_track.interpolation != Interpolation::kHermite;
  auto source_key = std::upper_bound(m_source_frames.begin(), m_source_frames.end(), from);
  float worst_at_key = -1.f;
  uint32_t worst_key_frame = from;
  for (uint32_t f = from + 1; f < to; ++f) {
    float value[4] = {0, 0, 0, 0};
    evaluate_key_coefficients(segment, static_cast<float>(f), m_kind, value);
    const float error = track_error(m_kind, m_samples[f].data(), value);
    if (error > worst) {
      worst = error;
      worst_frame = f;
    }
    if (keyed && source_key != m_source_frames.end() && *source_key == f) {
      if (error > worst_at_key) {
        worst_at_key = error;
        worst_key_frame = f;
      }
      ++source_key;
    }
  }
  if (worst_key_frame != from) worst_frame = worst_key_frame;
  const auto inside = std::upper_bound(m_between.begin(), m_between.end(), static_cast<float>(from),
                                       [](float t, const TimedSample& s) { return t < s.frame_time; });
  for (auto s = inside; s != m_between.end() && s->frame_time < static_cast<float>(to); ++s) {
    float value[4] = {0, 0, 0, 0};
    evaluate_key_coefficients(segment, s->frame_time, m_kind, value);
    const float error = track_error(m_kind, s->value.data(), value);
    if (error > worst) {
      worst = error;
      const uint32_t nearest = static_cast<uint32_t>(std::lround(s->frame_time));
      if (!keyed || worst_key_frame == from) {
        worst_frame = to - from >= 2 ? std::clamp(nearest, from + 1, to - 1) : from;
      }
    }
  }
  m_segment_error[key] = worst;
  m_segment_worst[key] = worst_frame;
}

void TrackFitter::push_segment(uint32_t key) {
  if (!(m_segment_error[key] > 0.f)) return;
  m_heap.push_back({m_segment_error[key], key});
  std::push_heap(m_heap.begin(), m_heap.end());
}

void TrackFitter::refine() {
  while (!m_heap.empty()) {
    const Candidate top = m_heap.front();
    if (top.error <= m_threshold) return;  // every segment is within the threshold
    std::pop_heap(m_heap.begin(), m_heap.end());
    m_heap.pop_back();
    // A stale entry (its segment re-measured since) is dropped.
    const uint32_t i = top.key;
    if (m_next[i] == kNoKey || m_segment_error[i] != top.error) continue;
    const uint32_t from = m_pool[i].frame;
    const uint32_t to = m_pool[m_next[i]].frame;
    uint32_t split = i;  // the key the new key goes after
    uint32_t frame = m_options.split_rule == SplitRule::kMidpoint ? from + (to - from) / 2 : m_segment_worst[i];
    if (frame <= from || frame >= to) {
      // A one-frame segment over its threshold (at a key between frames):
      // its tangents come from the keys either side, so a key at the frame
      // next to it, in the segment beside, is what can still bring it closer.
      const uint32_t beyond = m_next[m_next[i]];
      if (beyond != kNoKey && uint32_t{m_pool[beyond].frame} > to + 1) {
        split = m_next[i];
        frame = to + 1;
      } else if (m_prev[i] != kNoKey && uint32_t{m_pool[m_prev[i]].frame} + 1 < from) {
        split = m_prev[i];
        frame = from - 1;
      } else {
        continue;  // keys at every frame around it: as close as frames get
      }
    }
    const uint32_t added = append_key(make_key(static_cast<uint16_t>(frame), m_samples[frame].data()), split);
    align_from(added);
    // The new key is a neighbour in the windows of the segments from the key
    // before `split` to the one after the new key.
    const uint32_t remeasured[4] = {m_prev[split], split, added, m_next[added]};
    for (const uint32_t k : remeasured) {
      if (k == kNoKey || m_next[k] == kNoKey) continue;
      measure_segment(k);
      push_segment(k);
    }
  }
}

void TrackFitter::finish() {
  float worst = 0.f;
  for (float e : m_segment_error) worst = std::max(worst, e);
  std::vector<FittedKey>& keys = m_track.keys;
  keys.clear();
  if (!m_pool.empty()) {
    keys.reserve(m_pool.size());
    for (uint32_t k = 0; k != kNoKey; k = m_next[k]) keys.push_back(m_pool[k]);
  }
  if (m_track.coding != TrackCoding::kAnimated) {
    const float* value = constant_value(m_track);
    for (size_t f = 0; f < m_samples.size(); ++f) worst = std::max(worst, track_error(m_kind, m_samples[f].data(), value));
    for (const TimedSample& s : m_between) worst = std::max(worst, track_error(m_kind, s.value.data(), value));
  } else {
    for (size_t k = 0; k < keys.size(); ++k) {
      // The left key of a discontinuity is never a frame's value.
      if (k + 1 < keys.size() && keys[k + 1].frame == keys[k].frame) continue;
      worst = std::max(worst, key_error(keys[k].decoded, keys[k].frame));
    }
  }
  m_track.max_error = worst;
  m_track.threshold_met = worst <= m_threshold;
}

void evaluate_fitted(const FittedTrack& track, float t, float out[4]) {
  if (track.coding != TrackCoding::kAnimated) {
    std::copy(constant_value(track), constant_value(track) + 4, out);
    return;
  }
  evaluate_key_segment(track, segment_at(track.keys, t), t, out);
}

void decode_track(const FittedTrack& track, std::span<Sample> out) {
  const std::vector<FittedKey>& keys = track.keys;
  if (track.coding != TrackCoding::kAnimated) {
    for (Sample& s : out) std::copy(constant_value(track), constant_value(track) + 4, s.data());
    return;
  }
  size_t at_or_before = 0;  // keys at or before the frame
  size_t built = SIZE_MAX;   // the segment `segment` holds
  SegmentCoefficients segment;
  for (size_t f = 0; f < out.size(); ++f) {
    while (at_or_before < keys.size() && keys[at_or_before].frame <= f) ++at_or_before;
    size_t i = at_or_before > 0 ? at_or_before - 1 : 0;
    if (i >= keys.size() - 1) i = keys.size() - 2;
    if (i != built) {
      segment = key_segment_coefficients(keys, i, track.kind, track.interpolation);
      built = i;
    }
    evaluate_key_coefficients(segment, static_cast<float>(f), track.kind, out[f].data());
  }
}

void evaluate_ideal(const FittedTrack& track, float t, float out[4]) {
  const std::vector<FittedKey>& keys = track.keys;
  if (track.coding != TrackCoding::kAnimated) {
    // A constant's value is stored exactly: ideal and decoded are one.
    std::copy(constant_value(track), constant_value(track) + 4, out);
    return;
  }
  const size_t i = segment_at(keys, t);
  const size_t last = keys.size() - 1;
  const size_t around[4] = {i > 0 ? i - 1 : 0, i, std::min(i + 1, last), std::min(i + 2, last)};
  CurveKey k[4];
  for (size_t j = 0; j < 4; ++j) {
    k[j].frame = static_cast<float>(keys[around[j]].frame);
    std::copy(std::begin(keys[around[j]].ideal), std::end(keys[around[j]].ideal), k[j].value);
    if (track.kind == TrackKind::kRotation && j > 0) align_hemisphere(k[j - 1], k[j]);
  }
  evaluate_segment(k[0], k[1], k[2], k[3], t, component_count(track.kind), out, track.interpolation,
                   track.kind == TrackKind::kRotation);
  if (track.kind == TrackKind::kRotation) normalize_rotation(out);
}

}  // namespace ks
