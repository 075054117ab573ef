#include "keystream/codec/scalar_fit.h"

#include <cmath>
#include <unordered_map>

#include "keystream/clip/excerpt.h"
#include "keystream/codec/parallel_for.h"

namespace ks {

Result<std::vector<float>> resolve_scalar_precisions(const RawClip& clip, float default_precision,
                                                     const std::vector<ScalarPrecision>& overrides) {
  std::unordered_map<std::string_view, size_t> index;
  for (size_t s = 0; s < clip.scalars.size(); ++s) index.emplace(clip.scalars[s].name, s);
  std::vector<float> precisions(clip.scalars.size(), default_precision);
  for (const ScalarPrecision& o : overrides) {
    const auto at = index.find(o.track);
    if (at == index.end()) {
      return Error{"has a precision for \"" + excerpt(o.track) + "\", which is not one of its scalar tracks"};
    }
    precisions[at->second] = o.precision;
  }
  return precisions;
}

Status fit_scalar_tracks(const RawClip& clip, float default_precision, const std::vector<ScalarPrecision>& overrides,
                         const TrackFitOptions& options, unsigned threads, std::vector<FittedTrack>& tracks,
                         std::vector<FittedScalar>& scalars) {
  Result<std::vector<float>> precisions = resolve_scalar_precisions(clip, default_precision, overrides);
  if (!precisions) return Error{precisions.error()};
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    for (float v : clip.scalars[s].values) {
      // Codes of a value this large would not fit any step a float holds.
      if (std::fabs(v) > 1e30f) {
        return Error{"scalar track " + std::to_string(s) + " '" + excerpt(clip.scalars[s].name) +
                     "' has a value beyond 1e30"};
      }
    }
  }
  const size_t first = tracks.size();
  tracks.resize(first + clip.scalars.size());
  std::vector<size_t> all(clip.scalars.size());
  for (size_t s = 0; s < all.size(); ++s) all[s] = s;
  parallel_for(all, threads, nullptr, [&](size_t s) {
    const ScalarTrack& source = clip.scalars[s];
    std::vector<Sample> samples(clip.frame_count);
    for (uint32_t f = 0; f < clip.frame_count; ++f) source.value_at(f, samples[f].data());
    TrackFitter fitter(TrackKind::kScalar, samples, options, {}, &source.source_keys);
    fitter.fit(precisions.value()[s]);
    FittedTrack& track = tracks[first + s];
    track = std::move(fitter.track());
    track.bone = static_cast<uint32_t>(s);
  });
  for (size_t s = 0; s < clip.scalars.size(); ++s) {
    const ScalarTrack& source = clip.scalars[s];
    scalars.push_back({source.name, source.components, precisions.value()[s], source.target, source.node,
                       source.target_index});
  }
  return {};
}

}  // namespace ks
