#include "keystream/io/import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "keystream/clip/excerpt.h"
#include "keystream/io/assimp_import.h"
#include "keystream/io/bvh_import.h"
#include "keystream/io/gltf_import.h"

namespace ks {

Status ImportSettings::validate() const {
  if (animation_index < 0) {
    return Error{"animation index " + std::to_string(animation_index) + " is negative"};
  }
  if (!(sample_rate_hz == 0.f || (sample_rate_hz >= kMinSampleRateHz && sample_rate_hz <= kMaxSampleRateHz))) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", static_cast<double>(sample_rate_hz));
    return Error{std::string("sample rate ") + rate + " Hz is not 0 (automatic) or within 1 to 10000 Hz"};
  }
  if (max_bone_frames < 2) return Error{"the bone-frame limit must be at least 2"};
  if (!std::isfinite(bvh_unit_scale_m) || bvh_unit_scale_m < 0.f) {
    return Error{"BVH unit scale " + std::to_string(bvh_unit_scale_m) +
                 " m per unit is not a positive number (0 = automatic)"};
  }
  return {};
}

Status check_clip_size(uint64_t bones, uint64_t frames, const ImportSettings& settings, uint64_t scalar_components) {
  // bones + scalar_components and frames are below 2^32 each (every caller
  // limits them far lower): the product cannot overflow.
  const uint64_t units = bones + scalar_components;
  if (units * frames <= settings.max_bone_frames) return {};
  const std::string counted = scalar_components == 0 ? std::to_string(bones) + " bones"
                                                     : "(" + std::to_string(bones) + " bones + " +
                                                           std::to_string(scalar_components) + " scalar components)";
  return Error{counted + " x " + std::to_string(frames) + " frames is " + std::to_string(units * frames) +
               " bone-frames, more than the limit of " +
               std::to_string(settings.max_bone_frames) + " (about " +
               std::to_string(settings.max_bone_frames * 190 / 1000000) +
               " MB to fit); --max-bone-frames N raises it"};
}

Status check_imported(const ImportedClip& imported) {
  if (Status s = imported.skeleton.validate(); !s) return s;
  if (Status s = imported.clip.validate(imported.skeleton); !s) return s;
  if (imported.mesh) return imported.mesh->validate(imported.skeleton.bone_count());
  return {};
}

Result<int> choose_animation(const std::vector<std::string>& names, const ImportSettings& settings) {
  if (names.empty()) return Error{"the file has no animations to import"};
  if (!settings.animation_name.empty()) {
    std::string listed;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == settings.animation_name) return static_cast<int>(i);
      listed += (i ? ", '" : "'") + excerpt(names[i]) + "'";
    }
    return Error{"no animation is named '" + excerpt(settings.animation_name) + "' (the file has " +
                 excerpt(listed, 300) + ")"};
  }
  if (static_cast<size_t>(settings.animation_index) >= names.size()) {
    return Error{"animation index " + std::to_string(settings.animation_index) + " is out of range (the file has " +
                 std::to_string(names.size()) + " animations, 0 to " + std::to_string(names.size() - 1) + ")"};
  }
  return settings.animation_index;
}

std::string lowercase_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

bool is_importable(const std::filesystem::path& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".gltf" || ext == ".glb" || ext == ".bvh" || ext == ".fbx" || ext == ".dae" ||
         ext == ".zae";
}

Result<ImportedClip> import_clip(const std::filesystem::path& path, const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{path.string() + ": " + s.error()};
  const std::string ext = lowercase_extension(path);
  if (ext == ".gltf" || ext == ".glb") return import_gltf(path, settings);
  if (ext == ".bvh") return import_bvh(path, settings);
  if (ext == ".fbx" || ext == ".dae" || ext == ".zae") return import_assimp(path, settings);
  return Error{path.string() + ": unsupported file type '" + excerpt(ext) +
               "' (expected .gltf, .glb, .bvh, .fbx, .dae or .zae)"};
}

}  // namespace ks
