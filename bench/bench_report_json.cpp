// The report as JSON (bench_report.h): every table's numbers, units in the
// key names, for scripts that plot or compare runs.

#include <nlohmann/json.hpp>
#include <utility>

#include "bench/bench_report.h"

namespace ks::bench {

namespace {

nlohmann::json spread_json(const Spread& s) {
  if (s.empty()) return nullptr;
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
}

nlohmann::json point_json(const RateDistortionPoint& p) {
  return {{"label", p.label},
          {"tolerance_m", p.tolerance_m},
          {"shell_distance_m", p.shell_distance_m},
          {"raw_bytes", p.raw_bytes},
          {"stream_bytes", p.stream_bytes},
          {"metadata_bytes", p.metadata_bytes},
          {"stream_bytes_without_metadata", p.stream_bytes_without_metadata()},
          {"table_bytes", p.table_bytes},
          {"key_bytes", p.key_bytes},
          {"jump_frame_bytes", p.jump_frame_bytes},
          {"zstd_bytes", p.zstd_bytes},
          {"key_count", p.key_count},
          {"bits_per_key", p.bits_per_key},
          {"rice_key_bits", p.rice_key_bits},
          {"written_key_bits", p.written_key_bits},
          {"ratio", p.ratio},
          {"tracks_by_coding", {{"identity", p.tracks_by_coding[0]},
                                {"constant", p.tracks_by_coding[1]},
                                {"animated", p.tracks_by_coding[2]},
                                {"rest", p.tracks_by_coding[3]}}},
          {"max_object_error_m", {{"at_0_03_m", p.max_object_error_m[0]}, {"at_1_m", p.max_object_error_m[1]}}},
          {"p99_object_error_m", {{"at_0_03_m", p.p99_object_error_m[0]}, {"at_1_m", p.p99_object_error_m[1]}}},
          {"max_joint_position_error_m", p.max_joint_position_error_m},
          {"bones_over", p.bones_over},
          {"bones_over_without_floor", p.bones_over_without_floor},
          {"bones_over_floor_below_tolerance", p.bones_over_floor_below_tolerance},
          {"floor_m", p.floor_m},
          {"violation", p.violation()},
          {"worst_bone", p.bones_over > 0 ? nlohmann::json{{"bone", p.worst_bone},
                                                           {"error_m", p.worst_bone_error_m},
                                                           {"tolerance_m", p.worst_bone_tolerance_m},
                                                           {"floor_m", p.worst_bone_floor_m},
                                                           {"frame", p.worst_bone_frame}}
                                          : nlohmann::json(nullptr)},
          {"scalar_tracks", p.scalar_tracks},
          {"bone_bytes", p.bone_bytes()},
          {"scalar_bytes", p.scalar_bytes},
          {"bone_share_of_stream", p.bone_share()},
          {"scalar_share_of_stream", p.scalar_share()},
          {"max_scalar_error", p.max_scalar_error},
          {"scalars_over", p.scalars_over},
          {"scalars_over_without_floor", p.scalars_over_without_floor},
          {"worst_scalar", p.scalar_tracks > 0 ? nlohmann::json{{"track", p.worst_scalar},
                                                                {"error", p.worst_scalar_error},
                                                                {"precision", p.worst_scalar_precision},
                                                                {"frame", p.worst_scalar_frame}}
                                               : nlohmann::json(nullptr)},
          {"fit_rounds", p.fit_rounds},
          {"fit_ms", p.fit_ms}};
}

}  // namespace

std::string report_json(const BenchReport& report) {
  nlohmann::json j;
  j["command_line"] = report.command_line;
  j["machine"] = report.machine;
  j["build"] = report.build;
  j["shell_distance_m"] = report.shell_distance_m;
  j["rest_tracks"] = to_string(report.rest_tracks_skipped ? RestTracks::kSkip : RestTracks::kKeep);
  j["violations"] = violations(report);
  nlohmann::json rd = nlohmann::json::array();
  for (const ClipRateDistortion& clip : report.rate_distortion) {
    nlohmann::json c = {{"clip", clip.clip},
                        {"bones", clip.bones},
                        {"scalar_tracks", clip.scalar_tracks},
                        {"frames", clip.frames},
                        {"sample_rate_hz", clip.sample_rate_hz},
                        {"points", nlohmann::json::array()}};
    for (const RateDistortionPoint& p : clip.points) c["points"].push_back(point_json(p));
    c["at_tolerance"] = clip.at_tolerance ? point_json(*clip.at_tolerance) : nlohmann::json(nullptr);
    c["violation"] = clip.violation();
    if (!clip.error.empty()) c["error"] = clip.error;
    rd.push_back(std::move(c));
  }
  j["rate_distortion"] = std::move(rd);

  const TimingSettings& ts = report.timing_settings;
  j["timing_settings"] = {{"repetitions", ts.run.repetitions},
                          {"min_time_s", ts.run.min_time_s},
                          {"jump_intervals_s", ts.jump_intervals_s},
                          {"game_rate_hz", ts.game_rate_hz},
                          {"cold_working_set_bytes", ts.cold_working_set_bytes}};
  nlohmann::json timings = nlohmann::json::array();
  for (const ClipTimings& clip : report.timings) {
    nlohmann::json c = {{"clip", clip.name},
                        {"bones", clip.bones},
                        {"frames", clip.frames},
                        {"sample_rate_hz", clip.sample_rate_hz},
                        {"keys", clip.keys},
                        {"animated_tracks", clip.animated_tracks},
                        {"scalar_tracks", clip.scalar_tracks},
                        {"scalar_values", clip.scalar_values},
                        {"auto_jump_interval_frames", clip.auto_jump_interval_frames},
                        {"auto_jump_frame_bytes", clip.auto_jump_frame_bytes},
                        {"default_stream_bytes", clip.default_stream_bytes},
                        {"default_player_bytes", clip.default_player_bytes},
                        {"default_key_cache_bytes", clip.default_key_cache_bytes},
                        {"open_s", spread_json(clip.open_s)},
                        {"open_full_s", spread_json(clip.open_full_s)},
                        {"fit_s", spread_json(clip.fit_s)},
                        {"local_fit_s", spread_json(clip.local_fit_s)},
                        {"fit_ms_per_1000_frames", clip.fit_ms_per_1000_frames()},
                        {"rows", nlohmann::json::array()}};
    for (const SamplingRow& r : clip.rows) {
      c["rows"].push_back({{"measure", r.measure},
                           {"cache", to_string(r.cache)},
                           {"scalars", r.scalars},
                           {"curves_only", r.curves_only},
                           {"stream_bytes", r.stream_bytes},
                           {"copies", r.copies},
                           {"player_s_per_pose", spread_json(r.player_s)},
                           {"baseline_s_per_pose", spread_json(r.baseline_s)},
                           {"player_keys_per_pose", r.player_keys_per_pose},
                           {"baseline_keys_per_pose", r.baseline_keys_per_pose},
                           {"player_over_baseline", r.ratio()},
                           {"error", r.error}});
    }
    if (!clip.error.empty()) c["error"] = clip.error;
    timings.push_back(std::move(c));
  }
  j["timings"] = std::move(timings);

  if (report.crowd) {
    const CrowdReport& crowd = *report.crowd;
    const CrowdSettings& s = crowd.result.settings;
    nlohmann::json c = {{"settings", {{"characters", s.characters},
                                      {"game_frames", s.game_frames},
                                      {"game_rate_hz", s.game_rate_hz},
                                      {"jump_interval_s", s.jump_interval_s},
                                      {"seed", s.seed},
                                      {"same_phase", s.same_phase}}},
                        {"clips", nlohmann::json::array()},
                        {"rows", nlohmann::json::array()},
                        {"poses_identical", crowd.result.poses_identical}};
    for (const CrowdClipInfo& clip : crowd.result.clips) {
      c["clips"].push_back({{"name", clip.name},
                            {"bones", clip.bones},
                            {"tracks", clip.tracks},
                            {"animated_tracks", clip.animated_tracks},
                            {"keys", clip.keys},
                            {"frame_count", clip.frame_count},
                            {"sample_rate_hz", clip.sample_rate_hz},
                            {"characters", clip.characters},
                            {"stream_bytes_without_jump_frames", clip.stream_bytes_without_jump_frames},
                            {"stream_bytes", clip.stream_bytes}});
    }
    for (size_t i = 0; i < crowd.result.rows.size(); ++i) {
      const CrowdRow& r = crowd.result.rows[i];
      c["rows"].push_back({{"variant", r.label},
                           {"keys_read", r.keys_read},
                           {"state_updates", r.state_updates},
                           {"jump_frames_used", r.jump_frames_used},
                           {"restarts", r.restarts},
                           {"caches", r.caches},
                           {"cache_bytes", r.cache_bytes},
                           {"pose_checksum", r.pose_checksum},
                           {"run_s", i < crowd.run_seconds.size() ? spread_json(crowd.run_seconds[i])
                                                                  : nlohmann::json(nullptr)}});
    }
    if (!crowd.error.empty()) c["error"] = crowd.error;
    j["crowd"] = std::move(c);
  }
  // Names come from files: invalid UTF-8 becomes U+FFFD rather than an exception.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ks::bench
