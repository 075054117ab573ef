// The Open panel: a path field, the clips in a folder (.gltf, .glb, .bvh,
// .ks) and the recent files. Opening goes through the app, which keeps the
// current clip when the new one fails to load.

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

#include "app/studio/panels.h"
#include "core/clip/excerpt.h"
#include "core/io/import.h"

namespace ks::studio {

namespace {

bool is_openable(const std::filesystem::path& path) {
  return is_importable(path) || lowercase_extension(path) == ".ks";
}

struct Listing {
  std::filesystem::path folder;
  std::vector<std::filesystem::path> folders;
  std::vector<std::filesystem::path> files;
  std::string error;
};

Listing list_folder(const std::filesystem::path& folder) {
  Listing out;
  out.folder = folder;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      out.folders.push_back(it->path());
    } else if (is_openable(it->path())) {
      out.files.push_back(it->path());
    }
  }
  if (ec) out.error = folder.string() + ": " + ec.message();
  std::sort(out.folders.begin(), out.folders.end());
  std::sort(out.files.begin(), out.files.end());
  return out;
}

}  // namespace

void draw_open_panel(StudioState& state, bool* open) {
  if (!*open) return;
  if (!ImGui::Begin("Open", open)) {
    ImGui::End();
    return;
  }
  static std::string path_text;
  static Listing listing;
  static bool listed = false;
  if (!listed) {
    const std::filesystem::path start = state.clip_path.empty() ? std::filesystem::current_path() : state.clip_path.parent_path();
    listing = list_folder(start.empty() ? std::filesystem::path(".") : start);
    path_text = listing.folder.string();
    listed = true;
  }
  ImGui::SetNextItemWidth(-80.f);
  const bool entered = ImGui::InputText("##path", &path_text, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || entered) {
    std::error_code ec;
    const std::filesystem::path typed(path_text);
    if (std::filesystem::is_directory(typed, ec)) {
      listing = list_folder(typed);
    } else {
      state.open_requested = typed;
    }
  }
  if (!state.load_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.45f, 0.4f, 1.f));
    ImGui::TextWrapped("%s", excerpt(state.load_error, 500).c_str());
    ImGui::PopStyleColor();
  }
  if (state.clip && state.clip->animation_names.size() > 1) {
    int index = state.clip->animation_index;
    // Shortened: ImGui draws a label of tens of thousands of characters past
    // its 16-bit vertex indices, and a file may name an animation so.
    std::vector<std::string> shown;
    for (const std::string& n : state.clip->animation_names) shown.push_back(excerpt(n, 120));
    std::vector<const char*> names;
    for (const std::string& n : shown) names.push_back(n.c_str());
    if (ImGui::Combo("animation", &index, names.data(), static_cast<int>(names.size()))) {
      state.import_settings.animation_name.clear();
      state.import_settings.animation_index = index;
      state.open_requested = state.clip_path;
    }
  }
  if (!listing.error.empty()) ImGui::TextDisabled("%s", listing.error.c_str());
  if (ImGui::BeginChild("listing", ImVec2(0, -ImGui::GetTextLineHeightWithSpacing() * 7), true)) {
    if (ImGui::Selectable("..")) listing = list_folder(std::filesystem::absolute(listing.folder).parent_path());
    for (const std::filesystem::path& folder : listing.folders) {
      if (ImGui::Selectable((folder.filename().string() + "/").c_str())) {
        listing = list_folder(folder);
        path_text = folder.string();
        break;
      }
    }
    for (const std::filesystem::path& file : listing.files) {
      if (ImGui::Selectable(file.filename().string().c_str(), file == state.clip_path, ImGuiSelectableFlags_AllowDoubleClick) &&
          ImGui::IsMouseDoubleClicked(0)) {
        state.open_requested = file;
      } else if (ImGui::IsItemClicked()) {
        path_text = file.string();
      }
    }
  }
  ImGui::EndChild();
  ImGui::TextDisabled("Recent (double-click a file above, or one here)");
  for (const std::filesystem::path& recent : state.recent_files) {
    if (ImGui::Selectable(recent.string().c_str(), false, ImGuiSelectableFlags_AllowDoubleClick) &&
        ImGui::IsMouseDoubleClicked(0)) {
      state.open_requested = recent;
    }
  }
  ImGui::End();
}

}  // namespace ks::studio
