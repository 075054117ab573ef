#include "app/studio/plots/curve_label.h"

#include <algorithm>
#include <cassert>

namespace ks::studio {

namespace {

std::string keys_text(size_t count) {
  return std::to_string(count) + (count == 1 ? " key" : " keys");
}

}  // namespace

SourceKeyUse source_key_use(const FittedTrack& track, const SourceKeys& source) {
  SourceKeyUse use;
  if (!source.keyed()) return use;
  use.source_keys = source.frames.size();
  // Both frame lists increase (a discontinuity repeats a key's frame): one merge.
  auto at = source.frames.begin();
  uint32_t last_kept = 0;
  for (const FittedKey& key : track.keys) {
    at = std::lower_bound(at, source.frames.end(), uint32_t{key.frame});
    const bool on_source_key = at != source.frames.end() && *at == key.frame;
    if (on_source_key && (use.kept == 0 || key.frame != last_kept)) {
      ++use.kept;
      last_kept = key.frame;
    } else {
      ++use.added;
    }
  }
  return use;
}

const SourceKeys& track_source_keys(const RawClip& clip, uint32_t index, TrackKind kind) {
  if (kind == TrackKind::kScalar) {
    assert(index < clip.scalars.size());
    return clip.scalars[index].source_keys;
  }
  assert(index < clip.bones.size());
  return clip.bones[index].source_keys[static_cast<size_t>(kind)];
}

std::string curve_label(const FittedTrack& track, const SourceKeys& source) {
  if (track.coding != TrackCoding::kAnimated) return {};
  const SourceKeyUse use = source_key_use(track, source);
  const char* name = curve_name(track.interpolation);
  if (use.source_keys == 0) return std::string(name) + ", " + keys_text(track.keys.size());
  if (track.interpolation == Interpolation::kHermite) {
    return "Hermite, " + keys_text(track.keys.size()) + "; the source has " + std::to_string(use.source_keys) + " " +
           to_string(source.interpolation) + " keys";
  }
  std::string text = std::string(name) + " through ";
  text += use.kept == use.source_keys
              ? "all " + std::to_string(use.source_keys) + " source keys"
              : std::to_string(use.kept) + " of the source's " + std::to_string(use.source_keys) + " keys";
  if (use.added > 0) text += " and " + std::to_string(use.added) + " more";
  return text;
}

const char* curve_name(Interpolation interpolation) {
  return interpolation == Interpolation::kHermite ? "Hermite" : to_string(interpolation);
}

}  // namespace ks::studio
