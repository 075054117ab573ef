#include "app/studio/panels/open_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <system_error>

#include "keystream/clip/excerpt.h"
#include "keystream/io/import.h"

namespace ks::studio {

namespace {

bool is_openable(const std::filesystem::path& path) {
  return is_importable(path) || lowercase_extension(path) == ".ks";
}

// The animations of a file, read by importing its first one: only glTF, FBX
// and Collada files hold several (a BVH file or a stream holds one clip,
// listed as none).
Result<std::vector<std::string>> list_animations(const std::filesystem::path& file) {
  const std::string ext = lowercase_extension(file);
  if (!is_importable(file) || ext == ".bvh") return std::vector<std::string>{};
  Result<ImportedClip> imported = import_clip(file);
  if (!imported) return Error{imported.error()};
  return std::move(imported.value().animation_names);
}

}  // namespace

OpenPanel::OpenPanel() : m_choice(list_animations) {}

OpenPanel::Listing OpenPanel::list_folder(const std::filesystem::path& folder) {
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

void OpenPanel::start(const StudioState& state) {
  const std::filesystem::path start =
      state.clip_path.empty() ? std::filesystem::current_path() : state.clip_path.parent_path();
  m_listing = list_folder(start.empty() ? std::filesystem::path(".") : start);
  if (state.clip) {
    m_choice.point_at_open(state.clip_path, state.clip->animation_names, state.clip->animation_index);
    m_path_text = state.clip_path.string();
  } else {
    m_choice.point_at({});
    m_path_text = m_listing.folder.string();
  }
}

void OpenPanel::show(const StudioState& state) {
  start(state);
  m_was_open = true;
  m_focus = true;
}

void OpenPanel::point_at(const std::filesystem::path& file) {
  m_choice.point_at(file);
  m_path_text = file.string();
}

void OpenPanel::show_folder(const std::filesystem::path& folder) {
  m_listing = list_folder(folder);
  m_path_text = folder.string();
}

void OpenPanel::request_open(StudioState& state, const std::filesystem::path& file) {
  // The animation chosen belongs to the file under the cursor; any other file opens at its first.
  state.open_requested = file;
  state.open_animation = file == m_choice.file() ? m_choice.animation() : 0;
}

void OpenPanel::draw_animations(const StudioState& state) {
  if (!m_choice.error().empty()) {
    // Once is enough when Open failed on this file with the same words.
    if (m_choice.error() != state.load_error) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.45f, 0.4f, 1.f));
      ImGui::TextWrapped("%s", excerpt(m_choice.error(), 500).c_str());
      ImGui::PopStyleColor();
    }
    return;
  }
  const std::vector<std::string>& animations = m_choice.animations();
  if (animations.size() < 2) return;
  // Shortened: ImGui draws a label of tens of thousands of characters past
  // its 16-bit vertex indices, and a file may name an animation so.
  std::vector<std::string> shown;
  for (const std::string& n : animations) shown.push_back(excerpt(n, 120));
  std::vector<const char*> names;
  for (const std::string& n : shown) names.push_back(n.c_str());
  int index = m_choice.animation();
  const std::string label = "animation of " + excerpt(m_choice.file().filename().string(), 60);
  if (ImGui::Combo(label.c_str(), &index, names.data(), static_cast<int>(names.size()))) {
    m_choice.choose_animation(index);
  }
}

void OpenPanel::draw_listing(StudioState& state) {
  if (!m_listing.error.empty()) ImGui::TextDisabled("%s", m_listing.error.c_str());
  if (ImGui::BeginChild("listing", ImVec2(0, -ImGui::GetTextLineHeightWithSpacing() * 7), true)) {
    if (ImGui::Selectable("..")) show_folder(std::filesystem::absolute(m_listing.folder).parent_path());
    for (const std::filesystem::path& folder : m_listing.folders) {
      if (ImGui::Selectable((folder.filename().string() + "/").c_str())) {
        show_folder(folder);
        break;
      }
    }
    for (const std::filesystem::path& file : m_listing.files) {
      // Highlighted: the file under the cursor, whose animations are listed above.
      const bool pressed = ImGui::Selectable(file.filename().string().c_str(), file == m_choice.file(),
                                             ImGuiSelectableFlags_AllowDoubleClick);
      if (pressed) {
        point_at(file);
        if (ImGui::IsMouseDoubleClicked(0)) request_open(state, file);
      }
    }
  }
  ImGui::EndChild();
}

void OpenPanel::draw(StudioState& state, bool* open) {
  if (!*open) {
    m_was_open = false;
    m_shown_error.clear();
    return;
  }
  if (!m_was_open) show(state);
  if (m_focus) ImGui::SetNextWindowFocus();
  m_focus = false;
  if (!ImGui::Begin("Open", open)) {
    m_shown_error.clear();  // collapsed
    ImGui::End();
    return;
  }
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) &&
      ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    *open = false;
  }
  ImGui::SetNextItemWidth(-80.f);
  const bool entered = ImGui::InputText("##path", &m_path_text, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || entered) {
    std::error_code ec;
    const std::filesystem::path typed(m_path_text);
    if (std::filesystem::is_directory(typed, ec)) {
      m_listing = list_folder(typed);
    } else {
      request_open(state, typed);
    }
  }
  m_shown_error.clear();
  if (!state.load_error.empty()) {
    m_shown_error = excerpt(state.load_error, 500);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.45f, 0.4f, 1.f));
    ImGui::TextWrapped("%s", m_shown_error.c_str());
    ImGui::PopStyleColor();
  }
  draw_animations(state);
  draw_listing(state);
  // Every clip below this folder, one set sharing the settings (the Set tab beside Curves).
  if (!m_listing.files.empty() || !m_listing.folders.empty()) {
    if (ImGui::Button("Open the folder as a set")) request_open(state, m_listing.folder);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Every .gltf, .glb, .bvh, .fbx, .dae and .zae file in %s and below, fitted with one set "
                        "of settings", excerpt(m_listing.folder.string(), 200).c_str());
    }
  }
  ImGui::TextDisabled("Recent (double-click a file above, or one here)");
  for (const std::filesystem::path& recent : state.recent_files) {
    if (ImGui::Selectable(recent.string().c_str(), false, ImGuiSelectableFlags_AllowDoubleClick) &&
        ImGui::IsMouseDoubleClicked(0)) {
      request_open(state, recent);
    }
  }
  ImGui::End();
}

}  // namespace ks::studio
