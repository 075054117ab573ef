#pragma once
// PlotLayer: the unchanging part of a plot (background, grid, labels,
// series, thresholds) kept in a texture. Under Mesa's software OpenGL the
// rasteriser's cost is per triangle as much as per pixel, and a plot of
// long mocap is tens of thousands of thin ones: redrawn every frame while
// only the time cursor moved, the Curves panel was most of a frame. A plot
// draws its layer into the layer's own draw list when its key (everything
// the layer shows) changes, the layer renders that to a texture once, and
// every frame shows the texture as one quad, the cursor and tooltip drawn
// live over it.
//
// Owns GL objects: release() must run while the GL context lives (the
// destructor does not touch GL, so a layer outliving the context leaks
// rather than crashes).

#include <imgui.h>

#include <cstdint>

namespace ks::studio {

class PlotLayer {
 public:
  PlotLayer() = default;
  ~PlotLayer() { delete m_list; }  // the draw list only: GL objects go in release()
  PlotLayer(const PlotLayer&) = delete;
  PlotLayer& operator=(const PlotLayer&) = delete;
  PlotLayer(PlotLayer&& other) noexcept { *this = static_cast<PlotLayer&&>(other); }
  PlotLayer& operator=(PlotLayer&& other) noexcept;

  /// True when the texture already shows the layer `key` at `size` px: show() it.
  bool holds(uint64_t key, ImVec2 size) const;
  /// A draw list for drawing the layer anew, in screen coordinates with
  /// `origin` at the layer's top-left; then render().
  ImDrawList* begin(ImVec2 origin, ImVec2 size);
  /// Renders what was drawn since begin() to the texture as the layer `key`.
  /// False when the GL objects cannot be made: the caller then draws
  /// straight into the window, as before caching.
  bool render(uint64_t key);
  /// Draws the texture into `into` at `origin`.
  void show(ImDrawList* into, ImVec2 origin) const;
  /// Frees the GL objects (while the context lives).
  void release();
  /// False once the GL objects could not be made: draw without the layer.
  bool usable() const { return m_usable; }

 private:
  bool make_target(int width, int height);

  ImDrawList* m_list = nullptr;  // made at the first begin(), with ImGui's shared data
  ImVec2 m_origin{}, m_size{};
  unsigned m_texture = 0, m_framebuffer = 0;
  int m_width = 0, m_height = 0;  // of the texture
  uint64_t m_key = 0;
  bool m_valid = false;  // the texture holds m_key
  bool m_usable = true;
};

}  // namespace ks::studio
