#include "keystream/io/additive_import.h"

#include <cstdint>
#include <cstdlib>
#include <system_error>

#include "keystream/clip/additive.h"
#include "keystream/clip/excerpt.h"

namespace ks {

namespace {

bool is_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

Result<AdditiveBaseSpec> parse_additive_base(std::string_view text) {
  if (text.empty()) return Error{"the additive base is empty: give first-frame, bind-pose or FILE[#ANIMATION]"};
  if (text == "first-frame") return AdditiveBaseSpec{AdditiveBase::kFirstFrame, {}, {}};
  if (text == "bind-pose") return AdditiveBaseSpec{AdditiveBase::kBindPose, {}, {}};
  const std::string whole(text);
  if (is_file(whole)) return AdditiveBaseSpec{AdditiveBase::kClip, whole, {}};
  if (const size_t hash = whole.rfind('#'); hash != std::string::npos && hash > 0 && is_file(whole.substr(0, hash))) {
    if (hash + 1 == whole.size())
      return Error{"the additive base \"" + excerpt(whole) + "\" names no animation after '#'"};
    return AdditiveBaseSpec{AdditiveBase::kClip, whole.substr(0, hash), whole.substr(hash + 1)};
  }
  return Error{"the additive base \"" + excerpt(whole) +
               "\" is neither first-frame, bind-pose nor an existing file (FILE or FILE#ANIMATION)"};
}

std::string to_string(const AdditiveBaseSpec& spec) {
  if (spec.base != AdditiveBase::kClip) return to_string(spec.base);
  return spec.file.string() + (spec.animation.empty() ? "" : "#" + spec.animation);
}

Status make_imported_additive(ImportedClip& imported, const AdditiveBaseSpec& spec, const ImportSettings& settings) {
  AdditiveSource source{spec.base, nullptr, {}};
  ImportedClip base;
  if (spec.base == AdditiveBase::kClip) {
    const std::string named = "additive base " + excerpt(to_string(spec));
    ImportSettings base_settings = settings;
    base_settings.animation_name.clear();
    base_settings.animation_index = 0;
    if (!spec.animation.empty()) {
      char* end = nullptr;
      const long index = std::strtol(spec.animation.c_str(), &end, 10);
      if (end == spec.animation.c_str() + spec.animation.size() && index >= 0 && index <= INT32_MAX) {
        base_settings.animation_index = static_cast<int>(index);
      } else {
        base_settings.animation_name = spec.animation;
      }
    }
    Result<ImportedClip> loaded = import_clip(spec.file, base_settings);
    if (!loaded) return Error{named + ": " + loaded.error()};
    base = std::move(loaded.value());
    const std::vector<std::string>& want = imported.skeleton.bone_names;
    const std::vector<std::string>& have = base.skeleton.bone_names;
    if (have.size() != want.size()) {
      return Error{named + " has " + std::to_string(have.size()) + " bones, the clip " + std::to_string(want.size()) +
                   ": an additive base must be on the clip's skeleton"};
    }
    for (size_t b = 0; b < want.size(); ++b) {
      if (have[b] != want[b]) {
        return Error{named + " has bone " + std::to_string(b) + " '" + excerpt(have[b]) + "' where the clip has '" +
                     excerpt(want[b]) + "': an additive base must be on the clip's skeleton"};
      }
    }
    source.clip = &base.clip;
    source.name = spec.file.string();
    if (base.animation_names.size() > 1 || !spec.animation.empty()) source.name += "#" + base.clip.name;
  }
  Result<RawClip> additive = make_additive(imported.skeleton, imported.clip, source);
  if (!additive) return Error{"additive base " + excerpt(to_string(spec)) + ": " + additive.error()};
  imported.clip = std::move(additive.value());
  return {};
}

Status make_additive_as_stream(ImportedClip& imported, const StreamView& stream,
                               const std::filesystem::path& stream_file, const std::optional<AdditiveBaseSpec>& given,
                               const ImportSettings& settings) {
  const AdditiveBase recorded = stream.metadata().additive_base;
  if (!stream.additive()) {
    if (given) return Error{"the stream is not additive, but an additive base was given"};
    return {};
  }
  if (given && given->base != recorded) {
    return Error{std::string("the stream is additive to ") + to_string(recorded) + ", but the base given is " +
                 to_string(given->base)};
  }
  AdditiveBaseSpec spec{recorded, {}, {}};
  if (given) {
    spec = *given;
  } else if (recorded == AdditiveBase::kClip) {
    const std::string& name = stream.metadata().additive_base_name;
    Result<AdditiveBaseSpec> found = parse_additive_base(name);
    if (!found) found = parse_additive_base((stream_file.parent_path() / name).string());
    if (!found) {
      return Error{
          "the stream is additive to \"" + excerpt(name) +
          "\", which is neither where it was nor beside the stream: name it with --additive-base FILE[#ANIMATION]"};
    }
    spec = std::move(found.value());
  }
  return make_imported_additive(imported, spec, settings);
}

}  // namespace ks
