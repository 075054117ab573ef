#include "keystream/codec/measure_json.h"

#include <nlohmann/json.hpp>

namespace ks {

std::string measurement_json(const ClipMeasurement& m, const Skeleton& skeleton,
                             std::span<const float> bone_tolerance_m) {
  const StreamSizes& z = m.sizes;
  nlohmann::json j = {{"raw_bytes", z.raw_bytes},
                      {"compressed_bytes", z.compressed_bytes},
                      {"ratio", z.ratio()},
                      {"table_bytes", z.table_bytes},
                      {"key_bytes", z.key_bytes},
                      {"jump_frame_bytes", z.jump_frame_bytes},
                      {"metadata_bytes", z.metadata_bytes},
                      {"scalar_bytes", z.scalar_bytes},
                      {"keys", z.key_count},
                      {"bits_per_key", z.bits_per_key()},
                      {"keys_by_kind",
                       {{"translation", z.keys_by_kind[0]},
                        {"rotation", z.keys_by_kind[1]},
                        {"scale", z.keys_by_kind[2]},
                        {"scalar", z.keys_by_kind[3]}}},
                      {"tracks_by_coding",
                       {{"identity", z.tracks_by_coding[0]},
                        {"constant", z.tracks_by_coding[1]},
                        {"animated", z.tracks_by_coding[2]},
                        {"rest", z.tracks_by_coding[3]}}},
                      {"max_translation_error_m", m.max_track_error[0]},
                      {"max_rotation_error_deg", m.max_track_error[1]},
                      {"max_scale_error", m.max_track_error[2]},
                      {"mean_translation_error_m", m.mean_track_error[0]},
                      {"mean_rotation_error_deg", m.mean_track_error[1]},
                      {"mean_scale_error", m.mean_track_error[2]},
                      {"max_joint_position_error_m", m.max_joint_position_error}};
  nlohmann::json object = nlohmann::json::array();
  for (size_t d = 0; d < m.distances_m.size(); ++d) {
    object.push_back(
        {{"distance_m", m.distances_m[d]}, {"max_m", m.max_object_error[d]}, {"p99_m", m.p99_object_error[d]}});
  }
  j["object_space_error"] = object;
  // Each bone at its own shell distance, when the measurement has them.
  nlohmann::json bones = nlohmann::json::array();
  size_t over = 0;
  for (size_t b = 0; b < m.bone_error_m.size() && b < skeleton.bone_count(); ++b) {
    nlohmann::json bone = {{"bone", skeleton.bone_names[b]},
                           {"max_m", m.bone_error_m[b]},
                           {"worst_frame", m.bone_worst_frame[b]},
                           {"worst_frame_time", m.bone_worst_frame_time[b]}};
    if (b < bone_tolerance_m.size()) {
      bone["tolerance_m"] = bone_tolerance_m[b];
      over += m.bone_error_m[b] > bone_tolerance_m[b] ? 1 : 0;
    }
    bones.push_back(bone);
  }
  j["bone_errors"] = bones;
  j["bones_over"] = over;
  nlohmann::json scalars = nlohmann::json::array();
  for (const TrackError& e : m.scalar_tracks) {
    scalars.push_back({{"max", e.max}, {"mean", e.mean}, {"worst_frame", e.worst_frame}});
  }
  j["scalar_tracks"] = scalars;
  // Names come from files: replace invalid UTF-8 rather than throw.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ks
