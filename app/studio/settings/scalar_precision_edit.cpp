#include "app/studio/settings/scalar_precision_edit.h"

#include <algorithm>
#include <cstdlib>

#include "app/studio/settings/bone_tolerance_edit.h"

namespace ks::studio {

const ScalarPrecision* find_scalar_precision(const FitSettings& settings, std::string_view track) {
  for (const ScalarPrecision& o : settings.scalar_precisions) {
    if (o.track == track) return &o;
  }
  return nullptr;
}

void set_scalar_precision(FitSettings& settings, const ScalarPrecision& precision) {
  for (ScalarPrecision& o : settings.scalar_precisions) {
    if (o.track == precision.track) {
      o = precision;
      return;
    }
  }
  settings.scalar_precisions.push_back(precision);
}

bool remove_scalar_precision(FitSettings& settings, std::string_view track) {
  std::vector<ScalarPrecision>& list = settings.scalar_precisions;
  const auto kept =
      std::remove_if(list.begin(), list.end(), [track](const ScalarPrecision& o) { return o.track == track; });
  const bool removed = kept != list.end();
  list.erase(kept, list.end());
  return removed;
}

void drop_foreign_scalar_precisions(FitSettings& settings, const RawClip& clip) {
  std::vector<ScalarPrecision>& list = settings.scalar_precisions;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const ScalarPrecision& o) {
                              return std::none_of(clip.scalars.begin(), clip.scalars.end(),
                                                  [&](const ScalarTrack& t) { return t.name == o.track; });
                            }),
             list.end());
}

int find_scalar_track(const RawClip& clip, std::string_view name) {
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    if (clip.scalars[s].name == name) return static_cast<int>(s);
  }
  return -1;
}

int scalar_track_by_name_or_index(const RawClip& clip, const std::string& text) {
  if (const int by_name = find_scalar_track(clip, text); by_name >= 0) return by_name;
  char* end = nullptr;
  const long index = std::strtol(text.c_str(), &end, 10);
  const bool whole = !text.empty() && *end == '\0' && index >= 0;
  return whole && static_cast<unsigned long>(index) < clip.scalars.size() ? static_cast<int>(index) : -1;
}

int scalar_track_after_open(const RawClip* previous, int selected, const RawClip& clip) {
  if (previous == nullptr || selected < 0 || static_cast<size_t>(selected) >= previous->scalars.size()) return -1;
  return find_scalar_track(clip, previous->scalars[static_cast<size_t>(selected)].name);
}

std::string describe_scalar_track(const ScalarTrack& track) {
  std::string text = track.target == ScalarTarget::kMorphWeight
                         ? "morph weight of " + track.node + ", target " + std::to_string(track.target_index)
                         : std::string("user curve");
  if (track.components > 1) text += ", " + std::to_string(track.components) + " components";
  return text;
}

std::string format_precision_pair(float error, float precision) {
  // Eight decimals: two significant digits of the least precision the sliders offer, and one more.
  return format_error_pair(static_cast<double>(error), static_cast<double>(precision), 8);
}

}  // namespace ks::studio
