#include "app/studio/io/file_dialogs.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <system_error>

#include "app/studio/io/save_actions.h"
#include "keystream/clip/excerpt.h"
#include "keystream/io/import.h"

namespace ks::studio {

namespace {

const ImVec4 kErrorColor(1.f, 0.45f, 0.4f, 1.f);
const ImVec4 kDoneColor(0.5f, 0.85f, 0.5f, 1.f);

// Escape closes the window being drawn when it has the focus.
bool escape_pressed_here() {
  return ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) &&
         ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
}

// "12,345": byte counts read at a glance.
std::string with_thousands(size_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// The settings the open clip was imported with, its animation by index.
ImportSettings open_clip_import(const StudioState& state) {
  ImportSettings import = state.import_settings;
  import.animation_name.clear();
  import.animation_index = state.clip ? state.clip->animation_index : 0;
  return import;
}

}  // namespace

void SaveDialog::follow_clip(const StudioState& state) {
  if (state.clip_path == m_clip_path) return;
  m_clip_path = state.clip_path;
  m_saved_stream.clear();
  m_saved_glb.clear();
}

std::filesystem::path SaveDialog::stream_path(const StudioState& state) const {
  if (state.clip_path == m_clip_path && !m_saved_stream.empty()) return m_saved_stream;
  return default_stream_path(state.clip_path);
}

void SaveDialog::open(SaveKind kind, const StudioState& state) {
  follow_clip(state);
  m_kind = kind;
  m_open = true;
  m_just_opened = true;
  m_confirming = false;
  m_message.clear();
  m_failed = false;
  if (kind == SaveKind::kStream) {
    m_path_text = stream_path(state).string();
  } else {
    m_path_text = (m_saved_glb.empty() ? default_glb_path(state.clip_path) : m_saved_glb).string();
  }
}

void SaveDialog::set_path(const std::filesystem::path& path) {
  m_path_text = path.string();
  m_confirming = false;
}

std::string SaveDialog::not_ready(const StudioState& state) {
  if (!state.clip) return "No clip is open.";
  if (state.result && state.result->clip == state.clip && !state.result->error.empty() && !state.fitting) {
    return "The fit failed: " + excerpt(state.result->error, 300);
  }
  const FitResult* result = state.current_result();
  if (result == nullptr || state.fitting || state.refit_requested || !(result->settings == state.settings)) {
    return "Fitting the current settings...";
  }
  return {};
}

Status SaveDialog::save(const StudioState& state) {
  follow_clip(state);
  m_confirming = false;
  const std::filesystem::path path(m_path_text);
  const char* extension = m_kind == SaveKind::kStream ? ".ks" : ".glb";
  Result<size_t> written = Error{};
  std::vector<std::string> warnings;
  if (const std::string why = not_ready(state); !why.empty()) {
    written = Error{why};
  } else if (path.filename().empty()) {
    written = Error{"No file name given."};
  } else if (lowercase_extension(path) != extension) {
    written = Error{path.string() + ": the file name must end in " + extension};
  } else if (m_kind == SaveKind::kStream) {
    written = save_stream(*state.current_result(), path);
  } else {
    written = export_decoded_glb(*state.current_result(), path, state.import_settings.allow_outside_uris, warnings);
  }
  m_failed = !written;
  if (!written) {
    m_message = written.error();
    return Error{m_message};
  }
  (m_kind == SaveKind::kStream ? m_saved_stream : m_saved_glb) = path;
  m_message = "Wrote " + with_thousands(written.value()) + " bytes to " + path.string();
  if (m_kind == SaveKind::kStream && !state.current_result()->fitted.bound_met()) {
    m_message += " (the fit misses its bound on some bones: see Stats)";
  } else if (m_kind == SaveKind::kDecodedGlb) {
    const std::string ext = lowercase_extension(state.clip_path);
    m_message += is_importable(state.clip_path) && ext != ".bvh" ? " (with the source's meshes)"
                                                                 : " (skeleton only: no mesh source)";
    for (const std::string& warning : warnings) m_message += "\nWarning: " + warning;
  }
  return {};
}

void SaveDialog::draw(const StudioState& state) {
  if (!m_open) return;
  const char* title = m_kind == SaveKind::kStream ? "Save stream###save" : "Export decoded glTF###save";
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 44.f, 0.f), ImGuiCond_Appearing);
  if (m_just_opened) ImGui::SetNextWindowFocus();
  if (!ImGui::Begin(title, &m_open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  if (escape_pressed_here()) m_open = false;
  ImGui::TextUnformatted(m_kind == SaveKind::kStream
                             ? "The fitted stream, as keystream compress writes it with these settings."
                             : "The decoded animation at every frame, as binary glTF, on the source's meshes.");
  if (m_just_opened) ImGui::SetKeyboardFocusHere();
  m_just_opened = false;
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Save").x - ImGui::GetStyle().FramePadding.x * 2.f -
                          ImGui::GetStyle().ItemSpacing.x);
  const std::string before = m_path_text;
  const bool entered = ImGui::InputText("##path", &m_path_text, ImGuiInputTextFlags_EnterReturnsTrue);
  if (m_path_text != before) m_confirming = false;
  ImGui::SameLine();
  const std::string why_not = not_ready(state);
  ImGui::BeginDisabled(!why_not.empty() || m_confirming);
  const bool pressed = ImGui::Button("Save") || (entered && why_not.empty());
  ImGui::EndDisabled();
  if (pressed) {
    std::error_code ec;
    if (std::filesystem::exists(m_path_text, ec)) {
      m_confirming = true;
    } else {
      static_cast<void>(save(state));  // the outcome is shown below
    }
  }
  if (!why_not.empty()) ImGui::TextDisabled("%s", why_not.c_str());
  if (m_confirming) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    ImGui::TextWrapped("%s already exists. Replace it?", excerpt(m_path_text, 300).c_str());
    ImGui::PopStyleColor();
    if (ImGui::Button("Replace")) static_cast<void>(save(state));
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) m_confirming = false;
  }
  if (!m_message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, m_failed ? kErrorColor : kDoneColor);
    ImGui::TextWrapped("%s", excerpt(m_message, 600).c_str());
    ImGui::PopStyleColor();
  }
  ImGui::End();
}

void CommandWindow::open(const StudioState& state, const std::filesystem::path& output) {
  m_open = true;
  if (!state.clip) {
    m_command = {};
    m_command.caveats.push_back("No clip is open.");
    m_text.clear();
    return;
  }
  show(compress_command(state.clip_path, open_clip_import(state), state.settings, output, state.additive));
}

void CommandWindow::show(CompressCommand command) {
  m_open = true;
  m_command = std::move(command);
  // Shown an option to a line, continued with backslashes: still one command when selected and pasted.
  m_text.clear();
  for (size_t i = 0; i < m_command.args.size(); ++i) {
    const std::string& arg = m_command.args[i];
    const bool new_line = i > 2 && arg.size() > 1 && arg[0] == '-' && !(m_command.args[i - 1] == "--bone-tolerance");
    m_text += (i == 0 ? "" : new_line ? " \\\n  " : " ") + shell_quote(arg);
  }
  ImGui::SetClipboardText(m_command.text.c_str());
}

void CommandWindow::draw() {
  if (!m_open) return;
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 50.f, 0.f), ImGuiCond_Appearing);
  if (!ImGui::Begin("Command", &m_open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  if (escape_pressed_here()) m_open = false;
  ImGui::TextUnformatted("keystream compress with the current settings (copied to the clipboard):");
  const float lines = std::min(12.f, 1.f + static_cast<float>(std::count(m_text.begin(), m_text.end(), '\n')));
  ImGui::InputTextMultiline("##command", &m_text,
                            ImVec2(-1.f, ImGui::GetTextLineHeight() * lines + ImGui::GetStyle().FramePadding.y * 2.f),
                            ImGuiInputTextFlags_ReadOnly);
  if (ImGui::Button("Copy")) ImGui::SetClipboardText(m_command.text.c_str());
  for (const std::string& caveat : m_command.caveats) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    ImGui::TextWrapped("%s", excerpt(caveat, 400).c_str());
    ImGui::PopStyleColor();
  }
  ImGui::End();
}

}  // namespace ks::studio
