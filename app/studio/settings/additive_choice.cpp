#include "app/studio/settings/additive_choice.h"

#include <algorithm>

namespace ks::studio {

namespace {

std::filesystem::path absolute_normal(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::absolute(path, ec).lexically_normal();
}

// A name that FILE#NAME reads back as (parse_additive_base takes the last
// '#'; make_imported_additive takes digits for an index).
bool spells_after_hash(const std::string& name) {
  return !name.empty() && name.find('#') == std::string::npos &&
         !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Result<std::shared_ptr<const ImportedClip>> clip_to_fit(std::shared_ptr<const ImportedClip> imported,
                                                        const AdditiveBaseSpec& spec, const ImportSettings& settings) {
  if (spec.base == AdditiveBase::kNone) return imported;
  ImportedClip additive = *imported;
  if (Status s = make_imported_additive(additive, spec, settings); !s) return Error{s.error()};
  return std::shared_ptr<const ImportedClip>(std::make_shared<ImportedClip>(std::move(additive)));
}

AdditiveBaseSpec absolute_base(AdditiveBaseSpec spec) {
  if (spec.base == AdditiveBase::kClip) spec.file = absolute_normal(spec.file);
  return spec;
}

AdditiveBaseSpec file_animation_base(const std::filesystem::path& path, const std::vector<std::string>& names,
                                     int index) {
  const size_t i = static_cast<size_t>(std::max(index, 0));
  const bool by_name = i < names.size() && spells_after_hash(names[i]);
  return {AdditiveBase::kClip, absolute_normal(path), by_name ? names[i] : std::to_string(i)};
}

int file_animation_index(const AdditiveBaseSpec& spec, const std::filesystem::path& path,
                         const std::vector<std::string>& names) {
  if (spec.base != AdditiveBase::kClip || absolute_normal(spec.file) != absolute_normal(path)) return -1;
  if (spec.animation.empty()) return names.empty() ? -1 : 0;
  const auto named = std::find(names.begin(), names.end(), spec.animation);
  if (named != names.end()) return static_cast<int>(named - names.begin());
  const bool digits = std::all_of(spec.animation.begin(), spec.animation.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || spec.animation.size() > 9) return -1;
  const int index = std::stoi(spec.animation);
  return static_cast<size_t>(index) < names.size() ? index : -1;
}

AdditiveBaseSpec base_after_open(const AdditiveBaseSpec& spec, const std::filesystem::path& previous,
                                 const std::filesystem::path& opened) {
  const bool previous_file = spec.base == AdditiveBase::kClip && absolute_normal(spec.file) == absolute_normal(previous);
  if (previous_file && absolute_normal(opened) != absolute_normal(previous)) return {};
  return spec;
}

std::string additive_label(const AdditiveBasePoses& base) {
  if (!base.additive()) return {};
  // The base file's name, not its folder: the line is read beside others.
  if (base.kind == AdditiveBase::kClip) return "additive to " + std::filesystem::path(base.name).filename().string();
  return std::string("additive to ") + to_string(base.kind);
}

}  // namespace ks::studio
