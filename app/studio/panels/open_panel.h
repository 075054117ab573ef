#pragma once
// OpenPanel: the "Open" window. A path field, the clips in a folder (.gltf,
// .glb, .bvh, .fbx, .dae, .zae, .ks), the recent files, and the animations of
// the file under the cursor (OpenChoice). Choosing changes nothing until Open: then the
// panel records the file and animation in state.open_requested and
// state.open_animation, and the app opens them (keeping the current clip
// when the new one fails) and closes the panel. Escape closes it too.

#include <filesystem>
#include <string>
#include <vector>

#include "app/studio/app/studio_state.h"
#include "app/studio/io/open_choice.h"

namespace ks::studio {

class OpenPanel {
 public:
  OpenPanel();

  /// Draws the window while *open; Escape (with the window focused) sets *open to false.
  void draw(StudioState& state, bool* open);

  // What the user's clicks do, for the scripted options (--open-choose):
  /// Fills the panel from the open clip, as when the window appears.
  void show(const StudioState& state);
  /// A click on `file` in the listing: its animations are listed, the first chosen.
  void point_at(const std::filesystem::path& file);
  /// A choice in the animation combo.
  void choose_animation(int index) { m_choice.choose_animation(index); }
  /// The Open button, with the path field holding the file under the cursor.
  void press_open(StudioState& state) { request_open(state, m_choice.file()); }
  /// The failed open's error as the window drew it last frame; empty when it drew none.
  const std::string& shown_error() const { return m_shown_error; }

 private:
  struct Listing {
    std::filesystem::path folder;
    std::vector<std::filesystem::path> folders;
    std::vector<std::filesystem::path> files;
    std::string error;
  };
  static Listing list_folder(const std::filesystem::path& folder);
  /// Fills the panel from the open clip when it (re)appears.
  void start(const StudioState& state);
  void show_folder(const std::filesystem::path& folder);
  void request_open(StudioState& state, const std::filesystem::path& file);
  void draw_animations(const StudioState& state);
  void draw_listing(StudioState& state);

  bool m_was_open = false;  // the window was drawn last frame (or shown since)
  bool m_focus = false;     // take the focus at the next draw
  std::string m_path_text;
  std::string m_shown_error;
  Listing m_listing;
  OpenChoice m_choice;
};

}  // namespace ks::studio
