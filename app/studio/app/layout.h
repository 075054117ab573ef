#pragma once
// Panel layout: the repository's imgui.ini is the default arrangement; what
// the user changes is saved to their own config folder, so running the
// studio never dirties the repository.

#include <filesystem>

namespace ks::studio {

/// $XDG_CONFIG_HOME/keystream/imgui.ini, or ~/.config/keystream/imgui.ini;
/// empty when neither variable is set.
std::filesystem::path user_layout_path();

/// The window size the default layout is drawn for.
inline constexpr int kDefaultLayoutWidth = 1600;
inline constexpr int kDefaultLayoutHeight = 1000;

/// Loads the user's layout when there is one, else `default_layout`, scaled
/// from kDefaultLayoutWidth x kDefaultLayoutHeight to the window's size so
/// every panel starts on screen.
void load_layout(const std::filesystem::path& default_layout, int width, int height);

/// Saves the current layout to user_layout_path() when ImGui says it
/// changed (call once a frame; it writes at most every few seconds).
void save_layout_if_changed();

}  // namespace ks::studio
