#pragma once
// ViewportPanel: the character, original and compressed. The original pose
// comes from the source samples, the compressed one from the Player
// decoding the fitted stream at the same time; side by side they share one
// camera, overlaid the original is drawn translucent over the compressed.
// Bones and mesh vertices are coloured by their object-space error now as a
// fraction of a tolerance shown in a legend: by default each bone's own E
// at its own shell distance d from the fit, so a fit that keeps its promise
// is green; a control views against one fixed E at d instead. Clicking a
// bone selects it for the bone tree and the curves. An additive clip shows
// on both sides composed on its base, or its layer alone on the bind pose;
// its colours are always on the composed pose, which the fit bounds. (The
// reference controls, labels and legend are in viewport_legend.cpp.)

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "app/studio/app/studio_state.h"
#include "app/studio/viewport/morph_weights.h"
#include "app/studio/viewport/orbit_camera.h"
#include "app/studio/viewport/scene_renderer.h"
#include "app/studio/viewport/viewport_scene.h"

namespace ks::studio {

enum class ViewMode { kSideBySide, kOverlay };
enum class ErrorColoring { kError, kMaterial };
/// What the error colours are read against.
enum class ErrorReference {
  kFit,    // each bone's tolerance E and shell distance d, as the fit had them
  kFixed,  // one E at one d for every bone (ViewportSettings::fixed_*)
};

/// How the viewport starts (the UI changes it).
struct ViewportSettings {
  ViewMode mode = ViewMode::kSideBySide;
  ErrorColoring coloring = ErrorColoring::kError;
  bool show_mesh = true;
  bool skeleton_over_mesh = false;  // all bones drawn through the mesh (without a mesh they always are)
  bool show_grid = true;
  bool follow_root = true;          // the camera moves with the root bone
  bool layer_alone = false;         // an additive clip: its layer on the bind pose, not composed on its base
  ErrorReference reference = ErrorReference::kFit;
  float fixed_tolerance_m = 0.001f;  // kFixed: E, metres (the end of the green); default 1 mm
  float fixed_distance_m = 0.03f;    // kFixed: d, metres from each bone; default 3 cm
};

/// The player's output at state.frame_time, empty while there is no fit of
/// the open clip.
struct DecodedFrame {
  std::span<const Transform> pose;           // local, one per bone
  std::span<const float> scalar_values;      // Player::sample_frame's scalar values
  std::span<const uint32_t> scalar_offsets;  // per scalar track, Player::scalar_value_offset
};

/// A view's place in the window, in framebuffer pixels from the top-left
/// (screenshot mode prints them so tests can compare the halves).
struct ViewRect {
  std::string name;  // "original", "compressed" or "overlay"
  int x = 0, y = 0, width = 0, height = 0;
};

class ViewportPanel {
 public:
  /// Needs the window's GL context; loads the shaders from `shader_dir`.
  ViewportPanel(const std::filesystem::path& shader_dir, ViewportSettings settings);

  /// Draws the "Viewport" window; `decoded` is what the player decoded.
  void draw(StudioState& state, const DecodedFrame& decoded);

  const std::vector<ViewRect>& view_rects() const { return m_view_rects; }
  /// An additive clip is drawn as its layer on the bind pose.
  bool layer_alone() const { return m_settings.layer_alone; }
  /// Compile errors of the viewport's shaders; empty when all build.
  std::string shader_errors() const { return m_renderer.shader_errors(); }
  void reload_shaders() { m_renderer.reload_shaders(); }

 private:
  void open_clip(const ImportedClip& clip, bool frame);
  void update_poses(const StudioState& state, const DecodedFrame& decoded);
  void model_poses(const ImportedClip& clip, const DecodedFrame& decoded, float frame_time, bool layer_alone);
  void update_morph_weights(const StudioState& state, const DecodedFrame& decoded);
  void update_errors(const StudioState& state);
  void draw_controls(const StudioState& state);
  void draw_tolerance_controls(const StudioState& state);
  void frame_box(const Box& box);
  void handle_mouse(StudioState& state, glm::vec2 image_min, glm::vec2 image_size);
  void render(const StudioState& state, int width, int height);
  void draw_labels(const StudioState& state, glm::vec2 image_min) const;
  void draw_legend(const StudioState& state);
  void draw_error_ramp(float width) const;
  void draw_worst_now(const StudioState& state) const;
  void bone_instances(std::span<const BoneShape> shapes, std::span<const int32_t> parents, bool colored,
                      int selected, bool only_selected, std::vector<BoneInstance>& out) const;
  float view_aspect(glm::vec2 image_size) const;

  ViewportSettings m_settings;
  SceneRenderer m_renderer;
  OrbitCamera m_camera;
  const ImportedClip* m_clip = nullptr;  // the clip the poses below belong to
  // The clip as imported that the camera framed: made additive (or back)
  // it is the same character, left where the user put it.
  const ImportedClip* m_framed = nullptr;
  float m_aspect = 1.f;                 // of one view, width / height, as last drawn
  float m_character_size_m = 1.f;       // extent of the character at its first pose
  Vec3 m_followed_root{};               // root position the camera last followed
  bool m_has_decoded = false;           // the decoded pose is there (a fit of this clip exists)
  std::vector<Transform> m_source_model, m_decoded_model;  // per bone; the source's is local until converted
  std::vector<Mat4> m_source_palette, m_decoded_palette;
  // Per mesh morph target: the scalar track driving it in the clip and in
  // the stream of m_bound_result (-1: none), and its weight now.
  std::vector<int32_t> m_source_morph_tracks, m_decoded_morph_tracks;
  const FitResult* m_bound_result = nullptr;
  std::vector<float> m_source_morph_weights, m_decoded_morph_weights;
  // Per bone: the tolerance and distance the colours are read against, the
  // object-space error now at that distance, and it as a fraction of the tolerance.
  std::vector<float> m_reference_tolerance_m, m_reference_distance_m, m_errors_m, m_fractions;
  bool m_reference_is_fit = false;  // the reference is the current fit's own tolerances
  // What the legend took below the views last frame: its text wraps in a
  // narrow window, and the views leave it that much room.
  float m_legend_height = 58.f;
  std::vector<float> m_vertex_fractions;  // per mesh vertex, its bones' fractions blended
  std::vector<glm::vec3> m_vertex_colors;
  std::vector<BoneShape> m_source_shapes, m_decoded_shapes;
  std::vector<BoneInstance> m_instances;
  std::vector<ViewRect> m_view_rects;
  glm::vec2 m_press_position{0.f};  // where the left button went down, to tell a click from a drag
  bool m_dragged = false;
};

}  // namespace ks::studio
