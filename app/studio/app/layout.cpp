#include "app/studio/app/layout.h"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <system_error>

#include "keystream/io/file_io.h"

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

namespace {

constexpr float kMenuBarHeight = 20.f;  // the default layout's panels start below it

// The default layout's "Pos=x,y" and "Size=w,h" lines scaled to a window of
// width x height; the rows below the menu bar stretch, the bar does not.
std::string scale_layout(const std::string& ini, int width, int height) {
  const float sx = static_cast<float>(width) / kDefaultLayoutWidth;
  const float sy = (static_cast<float>(height) - kMenuBarHeight) / (kDefaultLayoutHeight - kMenuBarHeight);
  std::istringstream in(ini);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    float a = 0.f, b = 0.f;
    if (std::sscanf(line.c_str(), "Pos=%f,%f", &a, &b) == 2) {
      line = "Pos=" + std::to_string(std::lround(a * sx)) + "," +
             std::to_string(std::lround(kMenuBarHeight + (b - kMenuBarHeight) * sy));
    } else if (std::sscanf(line.c_str(), "Size=%f,%f", &a, &b) == 2) {
      line = "Size=" + std::to_string(std::lround(a * sx)) + "," + std::to_string(std::lround(b * sy));
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

void load_layout(const std::filesystem::path& default_layout, int width, int height) {
  // ImGui's own file handling is off (IniFilename = nullptr): it would write
  // into the working directory, which may be the repository.
  const std::filesystem::path user = user_layout_path();
  std::error_code ec;
  const bool use_user = !user.empty() && std::filesystem::exists(user, ec);
  Result<std::string> text = read_file(use_user ? user : default_layout);
  if (!text) return;
  std::string ini = std::move(text.value());
  if (!use_user && (width != kDefaultLayoutWidth || height != kDefaultLayoutHeight)) {
    ini = scale_layout(ini, width, height);
  }
  ImGui::LoadIniSettingsFromMemory(ini.data(), ini.size());
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
