// StudioApp's menu bar (File, View, Help, the import warnings, what is
// open) and the keyboard shortcuts window.

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <string>
#include <vector>

#include "app/studio/app/studio_app.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

void StudioApp::draw_menu_bar() {
  if (!ImGui::BeginMainMenuBar()) return;
  // The middle of the File menu's label, for --show-file-menu to click.
  const ImVec2 menu_at = ImGui::GetCursorScreenPos();
  m_file_menu_x = menu_at.x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("File").x * 0.5f;
  m_file_menu_y = menu_at.y + ImGui::GetFrameHeight() * 0.5f;
  if (ImGui::BeginMenu("File")) {
    const bool have_clip = m_state.clip != nullptr;
    if (ImGui::MenuItem("Open...", "Ctrl+O")) m_show_open = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Save stream (.ks)...", "Ctrl+S", false, have_clip)) m_save.open(SaveKind::kStream, m_state);
    if (ImGui::MenuItem("Export decoded glTF (.glb)...", "Ctrl+E", false, have_clip)) {
      m_save.open(SaveKind::kDecodedGlb, m_state);
    }
    if (ImGui::MenuItem("Copy as command", "Ctrl+Shift+C", false, have_clip)) {
      m_command.open(m_state, m_save.stream_path(m_state));
    }
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("The keystream compress line that writes the same stream, per-bone overrides included");
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) glfwSetWindowShouldClose(m_window, GLFW_TRUE);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Rate-distortion", "Ctrl+D", &m_rd_panel.visible);
    if (ImGui::MenuItem("Set", "Ctrl+T", m_curves.tab_shown(), !m_set.empty())) toggle_set_tab();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Every clip of the set: open a folder, several files or a file of several animations");
    if (ImGui::MenuItem("Reload shaders", "Ctrl+R")) m_viewport->reload_shaders();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keyboard shortcuts", "F1")) m_show_help = true;
    ImGui::EndMenu();
  }
  // What the import could not use stays in view until dismissed: an
  // animation that lost a channel must not look whole.
  if (m_state.clip && !m_state.clip->warnings.empty() && !m_state.warnings_dismissed) {
    const std::vector<std::string>& warnings = m_state.clip->warnings;
    const std::string label =
        std::to_string(warnings.size()) + (warnings.size() == 1 ? " import warning" : " import warnings");
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    const bool open = ImGui::BeginMenu(label.c_str());
    ImGui::PopStyleColor();
    if (open) {
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.f);
      for (const std::string& warning : warnings) ImGui::TextUnformatted(excerpt(warning, 300).c_str());
      ImGui::PopTextWrapPos();
      ImGui::Separator();
      if (ImGui::MenuItem("Dismiss")) m_state.warnings_dismissed = true;
      ImGui::EndMenu();
    }
  }
  if (m_state.clip) {
    const RawClip& clip = m_state.clip->clip;
    ImGui::Separator();
    ImGui::Text("%s [%s]  frame %.1f / %u  %s", excerpt(m_state.clip_path.filename().string(), 120).c_str(),
                excerpt(clip.name, 120).c_str(), static_cast<double>(m_state.frame_time), clip.frame_count - 1,
                m_state.playing ? "playing (space: pause)" : "paused (space: play)");
  }
  if (m_state.fitting) {
    ImGui::Separator();
    ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f), "fitting...");
  }
  if (set_busy()) {
    const SetProgress& p = m_set_view.progress;
    ImGui::Separator();
    ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f), "set: %zu / %zu fitted", p.rows_current, p.rows);
  }
  ImGui::EndMainMenuBar();
}

void StudioApp::draw_help() {
  if (!m_show_help) return;
  if (ImGui::Begin("Keyboard shortcuts", &m_show_help, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::Text("Space          play / pause");
    ImGui::Text("Left / Right   previous / next frame");
    ImGui::Text("Home / End     first / last frame");
    ImGui::Text("Ctrl+O         open a clip (Escape closes the Open window)");
    ImGui::Text("Ctrl+S         save the fitted stream (.ks)");
    ImGui::Text("Ctrl+E         export the decoded animation as glTF (.glb)");
    ImGui::Text("Ctrl+Shift+C   copy the keystream compress command for these settings");
    ImGui::Text("F              frame the selection in the curves");
    ImGui::Text("Ctrl+D         the rate-distortion panel (a sweep of tolerances)");
    ImGui::Text("Ctrl+T         the Set tab (every clip of the open set) or back to the curves");
    ImGui::Text("Ctrl+R         reload the viewport's shaders");
    ImGui::Text("F1             this list");
    ImGui::Separator();
    ImGui::Text("Viewport: drag orbits, Shift+drag or right/middle drag pans, wheel zooms,");
    ImGui::Text("double-click frames the character, click a bone to select it.");
    ImGui::Text("Curves: wheel zooms time, Ctrl+wheel zooms values, drag pans,");
    ImGui::Text("double-click fits, click sets the time. Drop a file on the window to open it.");
  }
  ImGui::End();
}

}  // namespace ks::studio
