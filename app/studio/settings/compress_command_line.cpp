#include "app/studio/settings/compress_command_line.h"

#include <cstdio>

#include "keystream/clip/excerpt.h"
#include "keystream/io/exact_number.h"
#include "keystream/io/file_io.h"
#include "keystream/io/tolerance_file.h"

namespace ks::studio {

namespace {

struct Builder {
  CompressCommand& out;

  void add(std::string arg) { out.args.push_back(std::move(arg)); }
  // `option VALUE` for a number the command line reads with `to_setting`.
  template <class ToSetting>
  void number(const char* option, float value, double scale, ToSetting to_setting) {
    const std::string text = exact_number(value, scale, to_setting);
    if (text.empty()) {
      char shown[64];
      std::snprintf(shown, sizeof shown, "%.9g", static_cast<double>(value) * scale);
      out.caveats.push_back(std::string(option) + " " + shown + " is as near as the command line can spell " +
                            "the studio's value; the fit may differ slightly");
      add(option);
      add(shown);
      return;
    }
    add(option);
    add(text);
  }
};

bool is_plain_shell_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_-./=@:,+%").find(c) != std::string_view::npos;
}

// Import options that differ from the defaults; the animation's index only
// for one clip (a set takes every animation).
void add_import_options(Builder& b, const ImportSettings& import, bool with_animation) {
  const ImportSettings defaults_import;
  if (with_animation && import.animation_index != 0) {
    b.add("--animation");
    b.add(std::to_string(import.animation_index));
  }
  if (import.sample_rate_hz != defaults_import.sample_rate_hz) {
    b.number("--sample-rate", import.sample_rate_hz, 1.0, as_is);
  }
  if (import.bvh_unit_scale_m != defaults_import.bvh_unit_scale_m) {
    b.number("--bvh-unit-scale", import.bvh_unit_scale_m, 1.0, as_is);
  }
  if (import.allow_outside_uris) b.add("--allow-outside-uris");
  if (import.max_bone_frames != defaults_import.max_bone_frames) {
    b.add("--max-bone-frames");
    b.add(std::to_string(import.max_bone_frames));
  }
}

// The error bound. The stream's metadata records both modes' values, but
// the command line takes only the chosen mode's: the others must be the
// defaults. With a tolerance file, the object-space values are read from it.
void add_bound_options(Builder& b, const FitSettings& fit, const std::filesystem::path& tolerance_file) {
  CompressCommand& out = b.out;
  std::error_code ec;
  const FitSettings defaults;
  const bool local = fit.error_mode == ErrorMode::kLocal;
  const bool object_values_default = fit.tolerance_m == defaults.tolerance_m &&
                                     fit.shell_distance_m == defaults.shell_distance_m && fit.bone_tolerances.empty();
  const bool local_values_default = fit.translation_error_m == defaults.translation_error_m &&
                                    fit.rotation_error_deg == defaults.rotation_error_deg &&
                                    fit.scale_error == defaults.scale_error;
  if (local) {
    b.add("--local");
    if (fit.translation_error_m != defaults.translation_error_m) {
      b.number("--translation-error", fit.translation_error_m, 1000.0, times_milli);
    }
    if (fit.rotation_error_deg != defaults.rotation_error_deg) {
      b.number("--rotation-error", fit.rotation_error_deg, 1.0, as_is);
    }
    if (fit.scale_error != defaults.scale_error) b.number("--scale-error", fit.scale_error, 1.0, as_is);
    if (!object_values_default) {
      out.caveats.push_back(
          "the object-space tolerance and overrides set in the studio are stored in its stream, "
          "but keystream compress --local refuses them; reset them to reproduce the file exactly");
    }
  } else {
    if (!tolerance_file.empty()) {
      // The file (bone_tolerance_file_text) holds the clip's E and d and every bone's.
      b.add("--bone-tolerances");
      b.add(std::filesystem::absolute(tolerance_file, ec).lexically_normal().string());
    }
    if (tolerance_file.empty() && fit.tolerance_m != defaults.tolerance_m) {
      b.number("--tolerance", fit.tolerance_m, 1000.0, times_milli);
    }
    if (tolerance_file.empty() && fit.shell_distance_m != defaults.shell_distance_m) {
      b.number("--shell-distance", fit.shell_distance_m, 100.0, times_centi);
    }
    const std::vector<BoneTolerance> no_overrides;
    for (const BoneTolerance& o : tolerance_file.empty() ? fit.bone_tolerances : no_overrides) {
      // NAME=MM[@CM]: the command line trims the name and splits at the last '='.
      const size_t first = o.bone.find_first_not_of(" \t\r");
      const size_t last = o.bone.find_last_not_of(" \t\r");
      if (o.bone.empty() || first != 0 || last != o.bone.size() - 1) {
        out.caveats.push_back("the command line cannot name bone '" + excerpt(o.bone) +
                              "' (it trims spaces from names)");
      }
      std::string value = o.bone + "=" + exact_number(o.tolerance_m, 1000.0, over_thousand);
      if (o.shell_distance_m > 0.f) value += "@" + exact_number(o.shell_distance_m, 100.0, over_hundred);
      if (value.find("=@") != std::string::npos || value.back() == '=' || value.back() == '@') {
        out.caveats.push_back("the override of bone '" + excerpt(o.bone) + "' cannot be spelled exactly");
      }
      b.add("--bone-tolerance");
      b.add(value);
    }
    if (!local_values_default) {
      out.caveats.push_back(
          "the local-mode thresholds set in the studio are stored in its stream, but keystream "
          "compress refuses them without --local; reset them to reproduce the file exactly");
    }
  }
  if (fit.rest_tracks != defaults.rest_tracks) {
    b.add("--rest-tracks");
    b.add(to_string(fit.rest_tracks));
  }
  // Scalar tracks, in either mode: X, or NAME=X (trimmed, split at the last '=').
  if (fit.scalar_precision != defaults.scalar_precision) {
    b.number("--scalar-precision", fit.scalar_precision, 1.0, as_is);
  }
  for (const ScalarPrecision& o : fit.scalar_precisions) {
    const size_t first = o.track.find_first_not_of(" \t\r");
    const size_t last = o.track.find_last_not_of(" \t\r");
    if (o.track.empty() || first != 0 || last != o.track.size() - 1) {
      out.caveats.push_back("the command line cannot name scalar track '" + excerpt(o.track) +
                            "' (it trims spaces from names)");
    }
    const std::string number = exact_number(o.precision, 1.0, as_is);
    if (number.empty()) {
      out.caveats.push_back("the precision of scalar track '" + excerpt(o.track) + "' cannot be spelled exactly");
    }
    b.add("--scalar-precision");
    b.add(o.track + "=" + number);
  }
  if (fit.split_rule == SplitRule::kMidpoint) {
    b.add("--split");
    b.add("midpoint");
  }
  if (fit.discontinuity_ratio != defaults.discontinuity_ratio) {
    b.number("--discontinuity-ratio", fit.discontinuity_ratio, 1.0, as_is);
  }
}

// Packing options that differ from the tool's defaults.
void add_pack_options(Builder& b, const PackSettings& pack) {
  const PackSettings pack_defaults = tool_pack_settings();
  if (!pack.auto_jump_interval) b.number("--jump-interval", pack.jump_interval_s, 1.0, as_is);
  if (pack.names != pack_defaults.names) {
    b.add("--names");
    b.add(to_string(pack.names));
  }
  if (pack.zstd) {
    b.add("--zstd");
    if (pack.zstd_level != pack_defaults.zstd_level) {
      b.add("--zstd-level");
      b.add(std::to_string(pack.zstd_level));
    }
  }
}

}  // namespace

std::string shell_quote(const std::string& arg) {
  if (excerpt(arg, std::string::npos) != arg) {
    // A control byte (or a stray one) must not reach the terminal the
    // command is printed on: $'...' spells every byte past ASCII as \xHH.
    static constexpr char kHex[] = "0123456789abcdef";
    std::string quoted = "$'";
    for (const char c : arg) {
      const auto byte = static_cast<unsigned char>(c);
      if (c == '\\' || c == '\'') {
        quoted += {'\\', c};
      } else if (byte < 0x20 || byte >= 0x7f) {
        quoted += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
      } else {
        quoted += c;
      }
    }
    return quoted + "'";
  }
  bool plain = !arg.empty();
  for (const char c : arg) plain = plain && is_plain_shell_char(c);
  if (plain) return arg;
  std::string quoted = "'";
  for (const char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

CompressCommand compress_command(const std::filesystem::path& source, const ImportSettings& import,
                                 const CodecSettings& settings, const std::filesystem::path& output,
                                 const AdditiveBaseSpec& additive) {
  CompressCommand out;
  Builder b{out};
  std::error_code ec;
  b.add("keystream");
  b.add("compress");
  b.add(std::filesystem::absolute(source, ec).lexically_normal().string());
  b.add("-o");
  b.add(std::filesystem::absolute(output, ec).lexically_normal().string());
  if (!is_importable(source)) {
    out.caveats.push_back("keystream compress reads .gltf, .glb, .bvh, .fbx, .dae and .zae files, not " +
                          excerpt(source.filename().string(), kPathExcerptChars) +
                          " (the studio re-fits a stream's decoded frames)");
  }

  add_import_options(b, import, /*with_animation=*/true);
  // The additive base: the stream records a base file's name as the studio
  // gave it, so the command must spell that very name.
  if (additive.base != AdditiveBase::kNone) {
    b.add("--additive-base");
    b.add(to_string(additive));
    if (additive.base == AdditiveBase::kClip && !additive.file.is_absolute()) {
      out.caveats.push_back("the additive base file " + excerpt(additive.file.string(), kPathExcerptChars) +
                            " is relative: the command finds it only from the studio's folder");
    }
  }

  add_bound_options(b, settings.fit, {});
  add_pack_options(b, settings.pack);
  for (const std::string& arg : out.args) out.text += (out.text.empty() ? "" : " ") + shell_quote(arg);
  return out;
}

CompressCommand set_compress_command(const std::vector<std::filesystem::path>& sources, const ImportSettings& import,
                                     const CodecSettings& settings, const std::filesystem::path& output_folder,
                                     const std::filesystem::path& tolerance_file) {
  CompressCommand out;
  Builder b{out};
  std::error_code ec;
  b.add("keystream");
  b.add("compress");
  for (const std::filesystem::path& source : sources) {
    b.add(std::filesystem::absolute(source, ec).lexically_normal().string());
    if (!is_importable(source)) {
      out.caveats.push_back("keystream compress reads .gltf, .glb, .bvh, .fbx, .dae and .zae files, not " +
                            excerpt(source.filename().string(), kPathExcerptChars));
    }
  }
  b.add("--all-animations");
  b.add("-o");
  b.add(std::filesystem::absolute(output_folder, ec).lexically_normal().string());
  add_import_options(b, import, /*with_animation=*/false);
  if (settings.fit.error_mode == ErrorMode::kObjectSpace) {
    // The file must hold these very settings: the command reads it, not the studio.
    Result<std::string> text = bone_tolerance_file_text(settings.fit);
    const Result<std::string> on_disk = read_file_prefix(tolerance_file, text ? text.value().size() + 1 : 0);
    const bool same = text && on_disk && on_disk.value() == text.value();
    if (!same) {
      out.caveats.push_back("the tolerance file " + excerpt(tolerance_file.string(), kPathExcerptChars) +
                            " does not hold these settings yet: save it (Set > Save) before running the command");
    }
  }
  add_bound_options(b, settings.fit, settings.fit.error_mode == ErrorMode::kObjectSpace ? tolerance_file
                                                                                      : std::filesystem::path());
  add_pack_options(b, settings.pack);
  for (const std::string& arg : out.args) out.text += (out.text.empty() ? "" : " ") + shell_quote(arg);
  return out;
}

}  // namespace ks::studio
