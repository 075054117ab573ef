// keystream info: what a stream file holds — header, metadata, keys, section
// sizes and jump frames — read from the file alone (nothing is decoded).
// --json gives the same facts as one JSON object for scripts.

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/scalar_report.h"
#include "app/cli/shown_text.h"
#include "keystream/codec/measure.h"
#include "keystream/io/stream_file.h"
#include "keystream/runtime/key_cache.h"
#include "keystream/runtime/player.h"

namespace ks::cli {

namespace {

constexpr const char* kInfoHelp =
    "usage: keystream info FILE.ks [options]\n"
    "\n"
    "Prints what a stream file holds: format version and flags, the error\n"
    "bound it was fitted to (object space: the tolerance, the shell distance\n"
    "and every per-bone override; local mode: the per-kind thresholds), clip\n"
    "and source names, bones, frames and rate, keys by kind, track codings,\n"
    "the curves of the animated tracks (Hermite, linear or step),\n"
    "the scalar tracks (morph-target weights and user curves: how many, their\n"
    "precisions and their share of the bytes), whether the clip is additive\n"
    "and onto what, the size of each section, the compression ratio and the\n"
    "jump frames.\n"
    "Exits 1 when the file is not a valid stream.\n"
    "\n"
    "options:\n"
    "  --tracks                 also list every track (bone or scalar track, kind,\n"
    "                           coding, keys, quantization step, curve) and every scalar\n"
    "                           track's target and precision\n"
    "  --runs                   also list every animated track's run of stream\n"
    "                           keys (where it starts, keys, bits)\n"
    "  --json                   print everything as one JSON object\n"
    "  -h, --help               show this help\n";

// Keys in the order the text report prints them.
using Json = nlohmann::ordered_json;

constexpr const char* kKindNames[4] = {"translation", "rotation", "scale", "scalar"};

/// Bytes of each section of the stream, in file order. The view's spans all
/// point into one buffer, so a section's offset is its distance from the start.
struct SectionSizes {
  size_t header_and_tables = 0;  // header, bone table, track table
  size_t key_widths = 0;         // the widths of every segment of stream keys
  size_t initial_keys = 0;
  size_t key_stream_plain = 0;  // the key stream before any compression
  size_t key_stream = 0;        // the section as stored (zstd: block table and frames)
  size_t jump_index = 0;
  size_t jump_states = 0;
  size_t metadata = 0;  // 0 in version 1
};

SectionSizes section_sizes(const StreamView& view) {
  const uint8_t* start = view.bytes().data();
  SectionSizes s;
  s.header_and_tables = static_cast<size_t>(view.key_widths().data() - start);
  s.key_widths = view.key_widths().size();
  s.initial_keys = view.initial_keys().size();
  s.key_stream_plain = (size_t{view.key_stream_bits()} + 7) / 8;
  s.key_stream = view.key_stream().size();
  s.jump_states = view.jump_states().size();
  s.jump_index = view.jump_frame_bytes() - s.jump_states;
  const size_t jump_states_end = static_cast<size_t>(view.jump_states().data() - start) + s.jump_states;
  s.metadata = view.bytes().size() - jump_states_end;
  return s;
}

std::string bone_name(const StreamView& view, uint32_t bone) {
  const StreamMetadata& meta = view.metadata();
  if (bone < meta.bone_names.size()) return meta.bone_names[bone];
  if (bone < meta.bone_name_hashes.size()) {
    char hash[16];
    std::snprintf(hash, sizeof hash, "#%08x", meta.bone_name_hashes[bone]);
    return hash;
  }
  return "bone_" + std::to_string(bone);
}

// What a track animates: its bone's name, or a scalar track's (StreamTrack::bone is its index among them).
std::string track_owner(const StreamView& view, const StreamTrack& track) {
  if (track.kind != TrackKind::kScalar) return bone_name(view, track.bone);
  const std::vector<StreamScalarInfo>& scalars = view.metadata().scalars;
  return track.bone < scalars.size() ? scalars[track.bone].name : "scalar " + std::to_string(track.bone);
}

// "yes, base first-frame" / "no": the additive flag and the base the metadata names.
std::string describe_additive(const StreamView& view) {
  const StreamMetadata& meta = view.metadata();
  if (!view.additive() && meta.additive_base == AdditiveBase::kNone) return "no";
  std::string text = std::string(view.additive() ? "yes" : "no (but the metadata names a base)") + ", base " +
                     to_string(meta.additive_base);
  if (!meta.additive_base_name.empty()) text += " '" + shown_name(meta.additive_base_name) + "'";
  return text;
}

/// The double whose shortest decimal form is the float's: 0.5f mm is written
/// as 0.5 in the JSON, not as the 0.50000002... its widening would give.
double json_number(float value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof(text) - 1, value).ptr;
  *end = '\0';
  return std::strtod(text, nullptr);
}

/// A stored threshold in its display unit, or null when unknown (stored as 0).
Json json_threshold(float value, float display_scale) {
  // To seven significant digits, a float's precision: 0.0001f m is
  // 0.09999999747 mm, written as 0.1.
  if (!(value > 0.f)) return Json(nullptr);
  char text[32];
  std::snprintf(text, sizeof(text), "%.7g", double{value} * display_scale);
  return Json(std::strtod(text, nullptr));
}

std::string text_threshold(float value, float display_scale, const char* unit) {
  if (value <= 0.f) return "unknown";
  char text[48];
  std::snprintf(text, sizeof(text), "%.4g%s", double{value} * display_scale, unit);
  return text;
}

/// Keys per second of the clip; 0 for a single-frame clip, which lasts no time.
double keys_per_second(const StreamView& view) {
  return view.duration_s() > 0.f ? view.total_key_count() / static_cast<double>(view.duration_s()) : 0.0;
}

/// Number of animated tracks of each interpolation (curves.md).
std::map<std::string, int> track_curves(const StreamView& view) {
  std::map<std::string, int> curves;
  for (const StreamTrack& t : view.tracks()) {
    if (t.coding == TrackCoding::kAnimated) ++curves[to_string(t.interpolation)];
  }
  return curves;
}

/// Number of tracks of each coding.
std::map<std::string, int> track_codings(const StreamView& view) {
  std::map<std::string, int> codings;
  for (const StreamTrack& t : view.tracks()) ++codings[to_string(t.coding)];
  return codings;
}

// Calls `visit(track, keys, first_bit, bits)` for every animated track's run
// of stream keys (its keys after the first three), in track order.
template <class Visit>
void for_each_run(const StreamView& view, Visit visit) {
  uint32_t animated = 0;
  for (uint32_t t = 0; t < view.tracks().size(); ++t) {
    const StreamTrack& track = view.tracks()[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const uint64_t first = view.run_starts()[animated];
    const uint64_t end = view.run_starts()[++animated];
    visit(t, track.key_count > kInitialKeysPerTrack ? track.key_count - kInitialKeysPerTrack : 0, first, end - first);
  }
}

Json info_json(const StreamFile& file, bool list_tracks, bool list_runs) {
  const StreamView& view = file.view;
  const StreamMetadata& meta = view.metadata();
  const StreamSizes sizes = stream_sizes(view);
  const SectionSizes sections = section_sizes(view);
  const bool zstd = view.key_stream_compressed();
  Json out;
  out["file"] = file.path.string();
  out["file_bytes"] = file.bytes.size();
  out["version"] = view.version();
  out["flags"] = {{"zstd_key_stream", zstd}, {"additive", view.additive()}};
  out["rest_value_bytes"] = meta.rest_values.size() * sizeof(float);
  out["additive"] = {{"additive", view.additive()},
                     {"base", to_string(meta.additive_base)},
                     {"base_name", meta.additive_base_name}};
  // The bound of the stream's mode; the other is null (its stored values are
  // the fit's defaults, which bound nothing).
  out["error_mode"] = meta.local_mode ? "local" : "object-space";
  if (meta.local_mode) {
    out["tolerance"] = nullptr;
    out["thresholds"] = {{"translation_mm", json_threshold(meta.translation_error_m, 1000.f)},
                         {"rotation_deg", json_threshold(meta.rotation_error_deg, 1.f)},
                         {"scale", json_threshold(meta.scale_error, 1.f)}};
  } else {
    Json overrides = Json::array();
    for (const StreamBoneTolerance& o : meta.bone_tolerances) {
      overrides.push_back({{"bone", bone_name(view, o.bone)},
                           {"bone_index", o.bone},
                           {"tolerance_mm", json_threshold(o.tolerance_m, 1000.f)},
                           {"shell_distance_cm", json_threshold(o.shell_distance_m, 100.f)}});
    }
    out["tolerance"] = {{"tolerance_mm", json_threshold(meta.tolerance_m, 1000.f)},
                        {"shell_distance_cm", json_threshold(meta.shell_distance_m, 100.f)},
                        {"bone_tolerances", overrides}};
    out["thresholds"] = nullptr;
  }
  out["clip_name"] = meta.clip_name;
  out["bone_names"] = !meta.bone_names.empty() ? "full" : !meta.bone_name_hashes.empty() ? "hash" : "none";
  out["source_name"] = meta.source_name;
  out["bones"] = view.bone_count();
  out["tracks"] = view.tracks().size();
  out["frames"] = view.frame_count();
  out["sample_rate_hz"] = json_number(view.sample_rate_hz());
  out["duration_s"] = json_number(view.duration_s());
  out["keys"] = {{"total", sizes.key_count},
                 {"translation", sizes.keys_by_kind[0]},
                 {"rotation", sizes.keys_by_kind[1]},
                 {"scale", sizes.keys_by_kind[2]},
                 {"scalar", sizes.keys_by_kind[3]},
                 {"in_key_stream", view.stream_key_count()},
                 {"streamed_tracks", view.streamed_track_count()},
                 {"per_second", keys_per_second(view)}};
  // Scalar tracks: what they drive, their precisions, their share of the bytes.
  const std::vector<ScalarTrackInfo> scalars = scalar_tracks_of(view);
  Json scalar_list = Json::array();
  for (size_t s = 0; s < scalars.size(); ++s) {
    Json entry = Json(to_json(scalars[s]));
    const StreamTrack& track = view.scalar_tracks()[s];
    entry["coding"] = to_string(track.coding);
    entry["keys"] = track.key_count;
    scalar_list.push_back(entry);
  }
  out["scalar_tracks"] = {
      {"count", scalars.size()},
      {"morph_weights", morph_weight_count(scalars)},
      {"curves", scalars.size() - morph_weight_count(scalars)},
      {"default_precision", json_threshold(meta.scalar_precision, 1.f)},
      {"bytes", sizes.scalar_bytes},
      {"share", sizes.compressed_bytes ? double(sizes.scalar_bytes) / double(sizes.compressed_bytes) : 0.0},
      {"tracks", scalar_list}};
  Json codings;
  for (const auto& [coding, count] : track_codings(view)) codings[coding] = count;
  out["track_codings"] = codings;
  Json curves;
  for (const auto& [interpolation, count] : track_curves(view)) curves[interpolation] = count;
  out["track_curves"] = curves;
  out["sections"] = {{"header_and_tables", sections.header_and_tables},
                     {"key_widths", sections.key_widths},
                     {"initial_keys", sections.initial_keys},
                     {"key_stream_plain", sections.key_stream_plain},
                     {"key_stream_compressed", zstd ? Json(sections.key_stream) : Json(nullptr)},
                     {"key_stream_ratio", zstd && sections.key_stream > 0
                                              ? Json(double(sections.key_stream_plain) / double(sections.key_stream))
                                              : Json(nullptr)},
                     {"jump_index", sections.jump_index},
                     {"jump_states", sections.jump_states},
                     {"metadata", sections.metadata}};
  out["raw_bytes"] = sizes.raw_bytes;
  out["ratio"] = sizes.ratio();
  out["jump_frames"] = {{"interval_frames", view.jump_interval_frames()},
                        {"interval_s", view.jump_interval_frames() / static_cast<double>(view.sample_rate_hz())},
                        {"count", view.jump_frames().size()},
                        {"bytes", view.jump_frame_bytes()}};
  out["player_key_stream_bytes"] = zstd ? Json(view.key_stream_bytes()) : Json(nullptr);
  if (list_tracks) {
    Json tracks = Json::array();
    for (size_t t = 0; t < view.tracks().size(); ++t) {
      const StreamTrack& track = view.tracks()[t];
      // A scalar track's "bone" is its index among the scalar tracks, "bone_name" its name.
      Json entry = {{"index", t},
                    {"bone", track.bone},
                    {"bone_name", track_owner(view, track)},
                    {"kind", kKindNames[static_cast<int>(track.kind)]},
                    {"coding", to_string(track.coding)},
                    {"keys", track.key_count}};
      if (track.coding == TrackCoding::kAnimated) {
        entry["step"] = track.quantization.step;
        entry["interpolation"] = to_string(track.interpolation);
      }
      tracks.push_back(entry);
    }
    out["track_list"] = tracks;
  }
  if (list_runs) {
    Json runs = Json::array();
    for_each_run(view, [&](uint32_t track, uint32_t keys, uint64_t first_bit, uint64_t bits) {
      runs.push_back({{"track", track}, {"keys", keys}, {"first_bit", first_bit}, {"bits", bits}});
    });
    out["run_list"] = runs;
  }
  return out;
}

void print_info(const StreamFile& file, bool list_tracks, bool list_runs) {
  const StreamView& view = file.view;
  const StreamMetadata& meta = view.metadata();
  const StreamSizes sizes = stream_sizes(view);
  const SectionSizes s = section_sizes(view);
  const bool zstd = view.key_stream_compressed();
  std::printf("file             %s, %zu bytes\n", shown_path(file.path).c_str(), file.bytes.size());
  std::printf("format           version %u, flags 0x%x (%s key stream)\n", view.version(), view.flags(),
              zstd ? "zstd" : "plain");
  if (meta.local_mode) {
    std::printf("error mode       local: every track within a per-kind threshold\n");
    std::printf("thresholds       translation %s, rotation %s, scale %s\n",
                text_threshold(meta.translation_error_m, 1000.f, " mm").c_str(),
                text_threshold(meta.rotation_error_deg, 1.f, " deg").c_str(),
                text_threshold(meta.scale_error, 1.f, "").c_str());
  } else {
    std::printf("error mode       object space: every bone's virtual vertices within its tolerance\n");
    std::printf("tolerance        %s at %s from each bone, %zu bone override%s\n",
                text_threshold(meta.tolerance_m, 1000.f, " mm").c_str(),
                text_threshold(meta.shell_distance_m, 100.f, " cm").c_str(), meta.bone_tolerances.size(),
                meta.bone_tolerances.size() == 1 ? "" : "s");
    for (const StreamBoneTolerance& o : meta.bone_tolerances) {
      const std::string distance =
          o.shell_distance_m > 0.f ? text_threshold(o.shell_distance_m, 100.f, " cm") : "the inherited distance";
      std::printf("  override       %s: %s at %s, and the bones below it\n",
                  shown_name(bone_name(view, o.bone)).c_str(), text_threshold(o.tolerance_m, 1000.f, " mm").c_str(),
                  distance.c_str());
    }
  }
  // Names come from the file: shown short and printable, so a hostile name
  // can neither flood the terminal nor send it escape sequences.
  const auto quoted = [](const std::string& name) {
    return name.empty() ? "(not stored)" : "'" + shown_name(name) + "'";
  };
  std::printf("clip             %s from %s\n", quoted(meta.clip_name).c_str(), quoted(meta.source_name).c_str());
  const char* const names = !meta.bone_names.empty()        ? "names stored"
                            : !meta.bone_name_hashes.empty() ? "32-bit FNV-1a name hashes stored"
                                                             : "no names stored";
  std::printf("skeleton         %u bones, %zu tracks; %s\n", view.bone_count(), view.tracks().size(), names);
  std::printf("frames           %u at %.4g Hz = %.3f s\n", view.frame_count(),
              static_cast<double>(view.sample_rate_hz()), static_cast<double>(view.duration_s()));
  std::printf("keys             %zu: translation %zu, rotation %zu, scale %zu, scalar %zu; %.1f per second\n",
              sizes.key_count, sizes.keys_by_kind[0], sizes.keys_by_kind[1], sizes.keys_by_kind[2],
              sizes.keys_by_kind[3], keys_per_second(view));
  const std::vector<ScalarTrackInfo> scalars = scalar_tracks_of(view);
  if (scalars.empty()) {
    std::printf("scalar tracks    none\n");
  } else {
    std::printf("scalar tracks    %s, default precision %s, %s\n", describe_count(scalars).c_str(),
                text_threshold(meta.scalar_precision, 1.f, "").c_str(),
                describe_share(sizes.scalar_bytes, sizes.compressed_bytes).c_str());
  }
  std::printf("additive         %s\n", describe_additive(view).c_str());
  std::printf("key stream       %u keys from %u streamed tracks (more than %u keys)\n", view.stream_key_count(),
              view.streamed_track_count(), kInitialKeysPerTrack);
  std::printf("track codings   ");
  for (const auto& [coding, count] : track_codings(view)) std::printf(" %s %d;", coding.c_str(), count);
  std::printf("\ntrack curves    ");
  for (const auto& [interpolation, count] : track_curves(view)) std::printf(" %s %d;", interpolation.c_str(), count);
  std::printf("\nsections\n");
  std::printf("  header+tables  %zu bytes\n", s.header_and_tables);
  std::printf("  key widths     %zu bytes\n", s.key_widths);
  std::printf("  initial keys   %zu bytes\n", s.initial_keys);
  if (zstd) {
    std::printf("  key stream     %zu bytes plain, %zu bytes zstd (%.2f : 1)\n", s.key_stream_plain, s.key_stream,
                s.key_stream ? double(s.key_stream_plain) / double(s.key_stream) : 0.0);
  } else {
    std::printf("  key stream     %zu bytes\n", s.key_stream_plain);
  }
  std::printf("  jump index     %zu bytes\n", s.jump_index);
  std::printf("  jump states    %zu bytes\n", s.jump_states);
  if (meta.rest_values.empty()) {
    std::printf("  metadata       %zu bytes\n", s.metadata);
  } else {
    // The engine binds its skeleton's rest pose (Player::set_rest_pose).
    std::printf("  metadata       %zu bytes, %zu of them the rest tracks' values for tools\n", s.metadata,
                meta.rest_values.size() * sizeof(float));
  }
  std::printf("raw size         %zu bytes (float32 T/R/S and scalar values), ratio %.2f : 1\n", sizes.raw_bytes,
              sizes.ratio());
  if (view.jump_interval_frames() == 0) {
    // --jump-interval auto gives none to a clip the default player caches.
    std::printf(KeyCache::bytes_for(view) <= Player::kDefaultKeyCacheBytes
                    ? "jump frames      none (the player caches the keys: a seek reads none)\n"
                    : "jump frames      none (a seek replays from the start)\n");
  } else {
    std::printf("jump frames      every %u frames (%.3g s), %zu frames, %zu bytes\n", view.jump_interval_frames(),
                view.jump_interval_frames() / static_cast<double>(view.sample_rate_hz()), view.jump_frames().size(),
                view.jump_frame_bytes());
  }
  if (zstd) {
    std::printf("player holds     %zu bytes: the key stream, decompressed once\n", view.key_stream_bytes());
  } else {
    std::printf("player holds     no key stream bytes (a plain key stream is read in place)\n");
  }
  if (list_tracks) {
    for (size_t t = 0; t < view.tracks().size(); ++t) {
      const StreamTrack& track = view.tracks()[t];
      std::printf("track %5zu %-28s %-11s %-8s %6u keys", t, shown_name(track_owner(view, track)).c_str(),
                  kKindNames[static_cast<int>(track.kind)], to_string(track.coding),
                  track.key_count);
      if (track.coding == TrackCoding::kAnimated) {
        std::printf(" step %.4g, %s curve", track.quantization.step, to_string(track.interpolation));
      }
      std::printf("\n");
    }
    for (const ScalarTrackInfo& scalar : scalars) {
      std::printf("scalar %-33s %u component%s, %s", shown_name(scalar.name).c_str(), scalar.components,
                  scalar.components == 1 ? "" : "s", to_string(scalar.target));
      if (scalar.target == ScalarTarget::kMorphWeight) {
        std::printf(" %u of '%s'", scalar.target_index, shown_name(scalar.node).c_str());
      }
      std::printf(", precision %s\n", text_threshold(scalar.precision, 1.f, "").c_str());
    }
  }
  if (list_runs) {
    for_each_run(view, [](uint32_t track, uint32_t keys, uint64_t first_bit, uint64_t bits) {
      std::printf("run of track %5u at bit %10llu %7u keys %10llu bits\n", track,
                  static_cast<unsigned long long>(first_bit), keys, static_cast<unsigned long long>(bits));
    });
  }
}

}  // namespace

int run_info(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::fputs(kInfoHelp, stdout);
    return 0;
  }
  Arguments args("info", raw_args);
  std::filesystem::path path;
  bool list_tracks = false, list_runs = false, as_json = false;
  while (!args.done()) {
    const std::string_view arg = args.next();
    if (arg == "--tracks") {
      list_tracks = true;
    } else if (arg == "--runs") {
      list_runs = true;
    } else if (arg == "--json") {
      as_json = true;
    } else if (!args.source(arg, path, "FILE.ks")) {
      return 2;
    }
  }
  if (path.empty()) {
    args.fail("no FILE.ks given (see keystream info --help)");
    return 2;
  }
  Result<std::unique_ptr<StreamFile>> file = load_stream_file(path);
  if (!file) {
    std::fprintf(stderr, "keystream: %s\n", shown_message(file.error()).c_str());
    return 1;
  }
  if (as_json) {
    // Names are whatever bytes the stream holds: invalid UTF-8 becomes U+FFFD
    // rather than an exception.
    const std::string text =
        info_json(*file.value(), list_tracks, list_runs).dump(2, ' ', false, Json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
  } else {
    print_info(*file.value(), list_tracks, list_runs);
  }
  return 0;
}

}  // namespace ks::cli
