#include "app/cli/scalar_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "app/cli/clip_report.h"
#include "app/cli/shown_text.h"

namespace ks::cli {

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace

std::vector<ScalarTrackInfo> scalar_tracks_of(const FittedClip& fitted) {
  std::vector<ScalarTrackInfo> tracks;
  for (const FittedScalar& s : fitted.scalars) {
    tracks.push_back({s.name, s.components, s.target, s.node, s.target_index, s.precision});
  }
  return tracks;
}

std::vector<ScalarTrackInfo> scalar_tracks_of(const RawClip& clip) {
  std::vector<ScalarTrackInfo> tracks;
  for (const ScalarTrack& s : clip.scalars) tracks.push_back({s.name, s.components, s.target, s.node, s.target_index});
  return tracks;
}

std::vector<ScalarTrackInfo> scalar_tracks_of(const StreamView& stream) {
  const std::vector<StreamScalarInfo>& stored = stream.metadata().scalars;
  std::vector<ScalarTrackInfo> tracks;
  for (size_t s = 0; s < stream.scalar_tracks().size(); ++s) {
    ScalarTrackInfo info;
    info.components = stream.scalar_tracks()[s].components;
    if (s < stored.size()) {
      info.name = stored[s].name;
      // The metadata parser refuses any target but 0 and 1.
      info.target = static_cast<ScalarTarget>(stored[s].target);
      info.node = stored[s].node;
      info.target_index = stored[s].target_index;
      info.precision = stored[s].precision;
    } else {
      info.name = "scalar " + std::to_string(s);
    }
    tracks.push_back(std::move(info));
  }
  return tracks;
}

size_t morph_weight_count(const std::vector<ScalarTrackInfo>& tracks) {
  return static_cast<size_t>(std::count_if(
      tracks.begin(), tracks.end(), [](const ScalarTrackInfo& t) { return t.target == ScalarTarget::kMorphWeight; }));
}

std::string describe_count(const std::vector<ScalarTrackInfo>& tracks) {
  if (tracks.empty()) return "none";
  const size_t morphs = morph_weight_count(tracks);
  const size_t curves = tracks.size() - morphs;
  return std::to_string(tracks.size()) + " (" + std::to_string(morphs) + " morph weight" + (morphs == 1 ? "" : "s") +
         ", " + std::to_string(curves) + " curve" + (curves == 1 ? "" : "s") + ")";
}

const char* json_target(ScalarTarget target) {
  return target == ScalarTarget::kMorphWeight ? "morph-weight" : "curve";
}

nlohmann::json to_json(const ScalarTrackInfo& track) {
  nlohmann::json j = {{"name", track.name}, {"components", track.components}, {"target", json_target(track.target)}};
  if (track.target == ScalarTarget::kMorphWeight) {
    j["node"] = track.node;
    j["target_index"] = track.target_index;
  }
  j["precision"] = track.precision > 0.f ? nlohmann::json(shortest(track.precision)) : nlohmann::json(nullptr);
  return j;
}

std::string describe_share(size_t part_bytes, size_t whole_bytes) {
  const double percent = whole_bytes ? 100.0 * static_cast<double>(part_bytes) / static_cast<double>(whole_bytes) : 0.0;
  return std::to_string(part_bytes) + " bytes (" + format("%.1f", percent) + "% of the stream)";
}

std::vector<ScalarError> scalar_errors(std::vector<ScalarTrackInfo> tracks, const ClipMeasurement& m) {
  std::vector<ScalarError> errors;
  // measure() refuses a stream whose scalar tracks are not the clip's: one each.
  for (size_t s = 0; s < tracks.size() && s < m.scalar_tracks.size(); ++s) {
    errors.push_back({std::move(tracks[s]), m.scalar_tracks[s]});
  }
  return errors;
}

size_t count_over(const std::vector<ScalarError>& errors) {
  return static_cast<size_t>(
      std::count_if(errors.begin(), errors.end(), [](const ScalarError& e) { return e.over(); }));
}

std::vector<size_t> worst_first(const std::vector<ScalarError>& errors) {
  std::vector<size_t> order(errors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return errors[a].ratio() > errors[b].ratio(); });
  return order;
}

std::string describe(const ScalarError& e) {
  return shown_name(e.track.name) + " " + format("%.4g", e.error.max) + " " + (e.over() ? ">" : "<=") + " " +
         format("%.4g", e.track.precision) + " (" +
         (e.ratio() < 10.f ? format("%.1f%%", 100.0 * e.ratio()) : format("%.3gx", e.ratio())) + "), " +
         describe_frame(e.error.worst_frame, e.error.worst_frame_time);
}

nlohmann::json to_json(const ScalarError& e) {
  nlohmann::json j = to_json(e.track);
  j["max"] = shortest(e.error.max);
  j["mean"] = shortest(e.error.mean);
  j["worst_frame"] = e.error.worst_frame;
  if (e.error.worst_frame_time != static_cast<float>(e.error.worst_frame)) {
    j["worst_frame_time"] = shortest(e.error.worst_frame_time);
  }
  j["ratio"] = shortest(e.ratio());
  j["ok"] = !e.over();
  return j;
}

}  // namespace ks::cli
