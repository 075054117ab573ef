#include "app/studio/layout.h"

#include <imgui.h>

#include <cstdlib>
#include <system_error>

#include "core/offline/file_io.h"

namespace ks::studio {

std::filesystem::path user_layout_path() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && xdg[0] != '\0') {
    return std::filesystem::path(xdg) / "keystream" / "imgui.ini";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    return std::filesystem::path(home) / ".config" / "keystream" / "imgui.ini";
  }
  return {};
}

void load_layout(const std::filesystem::path& default_layout) {
  // ImGui's own file handling is off (IniFilename = nullptr): it would write
  // into the working directory, which may be the repository.
  const std::filesystem::path user = user_layout_path();
  std::error_code ec;
  const std::filesystem::path& chosen = !user.empty() && std::filesystem::exists(user, ec) ? user : default_layout;
  if (Result<std::string> text = read_file(chosen); text) {
    ImGui::LoadIniSettingsFromMemory(text.value().data(), text.value().size());
  }
}

void save_layout_if_changed() {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantSaveIniSettings) return;
  io.WantSaveIniSettings = false;
  const std::filesystem::path user = user_layout_path();
  if (user.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(user.parent_path(), ec);
  size_t size = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&size);
  // A layout that cannot be saved is not worth interrupting anyone for.
  static_cast<void>(write_file_atomically(user, std::string_view(text, size)));
}

}  // namespace ks::studio
