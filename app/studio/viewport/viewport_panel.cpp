#include "app/studio/viewport/viewport_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <unordered_set>

#include <glm/gtc/type_ptr.hpp>

#include "app/studio/panels/flow_layout.h"
#include "app/studio/viewport/additive_pose.h"
#include "keystream/runtime/player.h"

namespace ks::studio {

namespace {

constexpr glm::vec3 kClearColor{0.16f, 0.17f, 0.19f};   // the viewport background
constexpr glm::vec3 kGridColor{0.27f, 0.28f, 0.31f};    // solid grid lines, one colour
constexpr glm::vec4 kNeutralBone{0.78f, 0.78f, 0.82f, 1.f};
constexpr glm::vec4 kOverlayOriginal{0.8f, 0.8f, 0.85f, 1.f};  // the original under the compressed pose's edges
constexpr float kClickSlop = 3.f;  // pixels a press may move and still be a click

// What the character covers in a pose: its skinned mesh (a robot's head or
// a fox's tail reaches far past the joints), or without one its joints.
Box character_box(const ImportedClip& clip, std::span<const Transform> model) {
  Box box;
  if (!clip.mesh || clip.mesh->vertex_count() == 0) {
    for (const Transform& t : model) box.add({t.translation.x, t.translation.y, t.translation.z});
    return box;
  }
  // The skin alone: a rig's helper bones (an IK target, a root left at the
  // origin) may stand far from the character it draws.
  std::vector<Mat4> palette(model.size());
  skinning_palette(clip.skeleton, model, palette);
  const SkinnedMesh& mesh = *clip.mesh;
  for (size_t v = 0; v < mesh.vertex_count(); ++v) {
    glm::vec3 skinned(0.f);
    for (int i = 0; i < 4; ++i) {
      const glm::mat4 m = glm::make_mat4(palette[mesh.joints[v][static_cast<size_t>(i)]].m);
      const Vec3 p = mesh.positions[v];
      skinned += mesh.weights[v][static_cast<size_t>(i)] * glm::vec3(m * glm::vec4(p.x, p.y, p.z, 1.f));
    }
    box.add(skinned);
  }
  return box;
}

}  // namespace

ViewportPanel::ViewportPanel(const std::filesystem::path& shader_dir, ViewportSettings settings)
    : m_settings(settings), m_renderer(shader_dir) {}

void ViewportPanel::frame_box(const Box& box) {
  m_camera.frame(box.lo, box.hi, m_aspect);
}

void ViewportPanel::open_clip(const ImportedClip& clip, bool frame) {
  m_clip = &clip;
  const size_t bones = clip.skeleton.bone_count();
  m_source_model.assign(bones, Transform{});
  m_decoded_model.assign(bones, Transform{});
  // The palettes skin the mesh: a bare skeleton (of maybe 50,000 bones) needs none.
  m_source_palette.assign(clip.mesh ? bones : 0, Mat4{});
  m_decoded_palette.assign(clip.mesh ? bones : 0, Mat4{});
  m_errors_m.assign(bones, 0.f);
  m_fractions.assign(bones, 0.f);
  m_vertex_fractions.assign(clip.mesh ? clip.mesh->vertex_count() : 0, 0.f);
  m_vertex_colors.assign(m_vertex_fractions.size(), glm::vec3(0.f));
  m_renderer.set_mesh(clip.mesh ? &*clip.mesh : nullptr);
  const std::span<const MorphTarget> targets =
      clip.mesh ? std::span<const MorphTarget>(clip.mesh->morph_targets) : std::span<const MorphTarget>();
  m_source_morph_tracks = bind_morph_tracks(targets, morph_track_keys(clip.clip.scalars));
  m_decoded_morph_tracks.assign(targets.size(), -1);
  m_bound_result = nullptr;
  m_source_morph_weights.assign(targets.size(), 0.f);
  m_decoded_morph_weights.assign(targets.size(), 0.f);
  if (!frame) return;
  // Frame the first pose; the size sets the grid spacing and the bone widths.
  source_pose_at(clip.clip, 0.f, m_source_model);
  shown_pose(clip.clip, clip.skeleton.rest_pose, 0.f, false, m_source_model);
  local_to_model(clip.skeleton.parents, m_source_model, m_source_model);  // in place: parents come first
  const Box box = character_box(clip, m_source_model);
  const glm::vec3 extent = box.hi - box.lo;
  m_character_size_m = std::max({extent.x, extent.y, extent.z, 1e-3f});
  frame_box(box);
  m_followed_root = m_source_model[0].translation;
}

void ViewportPanel::model_poses(const ImportedClip& clip, const DecodedFrame& decoded, float frame_time,
                                bool layer_alone) {
  const std::span<const int32_t> parents = clip.skeleton.parents;
  source_pose_at(clip.clip, frame_time, m_source_model);
  shown_pose(clip.clip, clip.skeleton.rest_pose, frame_time, layer_alone, m_source_model);
  local_to_model(parents, m_source_model, m_source_model);  // in place: parents come first
  if (!m_has_decoded) return;
  std::copy(decoded.pose.begin(), decoded.pose.end(), m_decoded_model.begin());
  shown_pose(clip.clip, clip.skeleton.rest_pose, frame_time, layer_alone, m_decoded_model);
  local_to_model(parents, m_decoded_model, m_decoded_model);
}

void ViewportPanel::update_poses(const StudioState& state, const DecodedFrame& decoded) {
  const ImportedClip& clip = *state.clip;
  m_has_decoded = decoded.pose.size() == m_source_model.size();
  // The colours read the composed pose (the fit's promise) even while the
  // layer alone is drawn, whose error the fit never measured.
  model_poses(clip, decoded, state.frame_time, false);
  update_errors(state);
  if (m_settings.layer_alone && clip.clip.additive_base.additive()) {
    model_poses(clip, decoded, state.frame_time, true);
  }
  if (m_renderer.has_mesh()) {
    skinning_palette(clip.skeleton, m_source_model, m_source_palette);
    if (m_has_decoded) skinning_palette(clip.skeleton, m_decoded_model, m_decoded_palette);
    update_morph_weights(state, decoded);
  }
  bone_shapes(clip.skeleton, m_source_model, m_source_shapes);
  if (m_has_decoded) bone_shapes(clip.skeleton, m_decoded_model, m_decoded_shapes);
  if (m_settings.follow_root) {
    // Carry the camera along with the root, so a pan stays where the user put it.
    const Vec3 root = m_source_model[0].translation;
    m_camera.target += glm::vec3(root.x - m_followed_root.x, 0.f, root.z - m_followed_root.z);
    m_followed_root = root;
  }
}

void ViewportPanel::update_morph_weights(const StudioState& state, const DecodedFrame& decoded) {
  if (m_source_morph_weights.empty()) return;
  const std::vector<MorphTarget>& targets = m_clip->mesh->morph_targets;
  source_morph_weights(targets, m_clip->clip, m_source_morph_tracks, state.frame_time, m_source_morph_weights);
  const FitResult* result = state.current_result();
  if (!m_has_decoded || result == nullptr) return;
  if (result != m_bound_result) {
    // The stream names what each scalar track drives; one packed without
    // its metadata has the clip's tracks, in the clip's order.
    const StreamView& view = result->view;
    const std::vector<StreamScalarInfo>& stored = view.metadata().scalars;
    std::vector<MorphTrackKey> keys;
    if (stored.size() == view.scalar_track_count()) {
      keys = morph_track_keys(stored);
    } else if (m_clip->clip.scalars.size() == view.scalar_track_count()) {
      keys = morph_track_keys(m_clip->clip.scalars);
    }
    m_decoded_morph_tracks = bind_morph_tracks(targets, keys);
    m_bound_result = result;
  }
  decoded_morph_weights(targets, decoded.scalar_values, decoded.scalar_offsets, m_decoded_morph_tracks,
                        m_decoded_morph_weights);
}

void ViewportPanel::update_errors(const StudioState& state) {
  const size_t bones = m_source_model.size();
  const FitResult* result = state.current_result();
  m_reference_is_fit = m_settings.reference == ErrorReference::kFit && result != nullptr &&
                       result->bone_tolerance_m.size() == bones && result->bone_shell_distance_m.size() == bones;
  if (m_reference_is_fit) {
    m_reference_tolerance_m = result->bone_tolerance_m;
    m_reference_distance_m = result->bone_shell_distance_m;
  } else {
    m_reference_tolerance_m.assign(bones, m_settings.fixed_tolerance_m);
    m_reference_distance_m.assign(bones, m_settings.fixed_distance_m);
  }
  if (!m_has_decoded) {
    std::fill(m_errors_m.begin(), m_errors_m.end(), 0.f);
    std::fill(m_fractions.begin(), m_fractions.end(), 0.f);
    return;
  }
  bone_error_fractions(m_source_model, m_decoded_model, m_reference_distance_m, m_reference_tolerance_m, m_errors_m,
                       m_fractions);
  if (m_clip->mesh && m_settings.show_mesh && m_settings.coloring == ErrorColoring::kError) {
    vertex_error_fractions(*m_clip->mesh, m_fractions, m_vertex_fractions);
    for (size_t v = 0; v < m_vertex_fractions.size(); ++v) m_vertex_colors[v] = error_color(m_vertex_fractions[v]);
  }
}

void ViewportPanel::bone_instances(std::span<const BoneShape> shapes, std::span<const int32_t> parents,
                                   bool colored, int selected, bool only_selected,
                                   std::vector<BoneInstance>& out) const {
  out.clear();
  // Shapes of different bones can coincide (a rig of 50,000 sibling leaves at
  // one offset): each is drawn once, as a second copy adds nothing but work,
  // and a software rasterizer keeps every triangle of a draw binned (tens of
  // MB for such a rig). The set holds indices into `out`, which only grows.
  static_assert(sizeof(BoneInstance) == 20 * sizeof(float), "instances compare by their bytes: no padding");
  const auto bytes = [&](uint32_t i) {
    return std::string_view(reinterpret_cast<const char*>(&out[i]), sizeof(BoneInstance));
  };
  const auto hash = [&](uint32_t i) { return std::hash<std::string_view>{}(bytes(i)); };
  const auto same = [&](uint32_t a, uint32_t b) { return bytes(a) == bytes(b); };
  std::unordered_set<uint32_t, decltype(hash), decltype(same)> drawn(shapes.size(), hash, same);
  // Thin inside a mesh, sturdier for a bare skeleton; never invisible.
  const float ratio = m_renderer.has_mesh() && m_settings.show_mesh ? 0.12f : 0.16f;
  const float min_width = 0.01f * m_character_size_m;
  for (const BoneShape& shape : shapes) {
    const bool is_selected = shape.bone == selected;
    if (only_selected && !is_selected) continue;
    // Alone over a mesh, a selected root (often on the floor, its shape
    // reaching up into the hips) is a short marker at its joint, not a spike
    // through the character.
    const bool root_marker = only_selected && parents[static_cast<size_t>(shape.bone)] < 0;
    const Vec3 tail = root_marker ? shape.head + Vec3{0.f, 0.04f * m_character_size_m, 0.f} : shape.tail;
    const float length = ks::length(tail - shape.head);
    float width = length > 0.f ? std::max(ratio * length, min_width) : 3.f * min_width;
    if (is_selected) width *= 1.6f;
    glm::vec4 color = kNeutralBone;
    if (colored) color = glm::vec4(error_color(m_fractions[static_cast<size_t>(shape.bone)]), 1.f);
    if (is_selected) color = glm::vec4(glm::mix(glm::vec3(color), glm::vec3(0.4f, 0.8f, 1.f), 0.6f), 1.f);
    out.push_back({bone_shape_matrix(shape.head, tail, width), color});
    if (!drawn.insert(static_cast<uint32_t>(out.size() - 1)).second) out.pop_back();
  }
}

float ViewportPanel::view_aspect(glm::vec2 image_size) const {
  const float width = m_settings.mode == ViewMode::kSideBySide ? 0.5f * image_size.x : image_size.x;
  return width / std::max(image_size.y, 1.f);
}

void ViewportPanel::render(const StudioState& state, int width, int height) {
  m_renderer.reload_shaders_if_changed();
  m_renderer.begin_frame(width, height, kClearColor);
  const float aspect = view_aspect({static_cast<float>(width), static_cast<float>(height)});
  const glm::mat4 view = m_camera.view(), projection = m_camera.projection(aspect);
  const float spacing = std::pow(10.f, std::floor(std::log10(m_character_size_m))) * 0.5f;
  const bool mesh = m_renderer.has_mesh() && m_settings.show_mesh;
  const bool by_error = m_settings.coloring == ErrorColoring::kError && m_has_decoded;
  const int selected = state.selected_bone;
  const std::span<const int32_t> parents = state.clip->skeleton.parents;

  auto draw_view = [&](int x, int view_width, bool original, bool compressed) {
    m_renderer.set_view(x, 0, view_width, height, view, projection);
    if (m_settings.show_grid) m_renderer.draw_grid(m_camera.target, spacing, 40, kGridColor);
    // Overlay: the original solid, the compressed pose as its edges over it,
    // so where they part shows as lines leaving the surface (two solid or
    // translucent surfaces at one depth only z-fight into stripes).
    if (original && mesh) {
      const glm::vec4 tint = compressed ? kOverlayOriginal : glm::vec4(1.f);
      MeshDraw source{m_source_palette, {}, tint};
      source.morph_weights = m_source_morph_weights;
      m_renderer.draw_mesh(source);
    }
    if (compressed && mesh) {
      MeshDraw decoded{m_decoded_palette,
                       by_error ? std::span<const glm::vec3>(m_vertex_colors) : std::span<const glm::vec3>(),
                       glm::vec4(1.f)};
      decoded.wireframe = original;
      decoded.morph_weights = m_decoded_morph_weights;
      m_renderer.draw_mesh(decoded);
    }
    // Over a mesh, the skeleton is optional; the selected bone always shows.
    const bool only_selected = mesh && !m_settings.skeleton_over_mesh;
    if (compressed) {
      bone_instances(m_decoded_shapes, parents, by_error, selected, only_selected, m_instances);
      m_renderer.draw_bones(m_instances, glm::vec4(1.f), mesh);
    }
    if (original) {
      bone_instances(m_source_shapes, parents, false, selected, only_selected, m_instances);
      m_renderer.draw_bones(m_instances, compressed ? glm::vec4(1.f, 1.f, 1.f, 0.35f) : glm::vec4(1.f),
                            mesh && !compressed);
    }
  };
  if (m_settings.mode == ViewMode::kSideBySide) {
    const int half = width / 2;
    draw_view(0, half, true, false);
    draw_view(half, width - half, false, m_has_decoded);
  } else {
    draw_view(0, width, true, m_has_decoded);
  }
  m_renderer.end_frame();
}

void ViewportPanel::draw_controls(const StudioState& state) {
  // The controls wrap onto a second line in a narrow window (flow_layout.h).
  int mode = static_cast<int>(m_settings.mode);
  ImGui::RadioButton("side by side", &mode, 0);
  same_line_if_fits(check_width("overlay"));
  ImGui::RadioButton("overlay", &mode, 1);
  m_settings.mode = static_cast<ViewMode>(mode);
  same_line_if_fits(check_width("error colours"), 16.f);
  int coloring = static_cast<int>(m_settings.coloring);
  ImGui::RadioButton("error colours", &coloring, 0);
  same_line_if_fits(check_width("material"));
  ImGui::RadioButton("material", &coloring, 1);
  m_settings.coloring = static_cast<ErrorColoring>(coloring);
  if (state.clip && state.clip->mesh) {
    same_line_if_fits(check_width("mesh"), 16.f);
    ImGui::Checkbox("mesh", &m_settings.show_mesh);
    same_line_if_fits(check_width("skeleton"));
    ImGui::Checkbox("skeleton", &m_settings.skeleton_over_mesh);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Draw every bone through the mesh (the selected one always is)");
    same_line_if_fits(check_width("grid"));
  } else {
    same_line_if_fits(check_width("grid"), 16.f);
  }
  ImGui::Checkbox("grid", &m_settings.show_grid);
  same_line_if_fits(check_width("follow"));
  ImGui::Checkbox("follow", &m_settings.follow_root);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The camera moves with the root bone");
  // Always there, so the views keep their size when the clip turns additive.
  same_line_if_fits(check_width("layer alone"));
  ImGui::BeginDisabled(!state.clip->clip.additive_base.additive());
  ImGui::Checkbox("layer alone", &m_settings.layer_alone);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip(
        "An additive clip (Settings > additive base): its layer on the bind pose, on both\n"
        "sides, rather than composed on its base. The colours stay those of the composed\n"
        "pose, which the fit bounds.");
  }
  same_line_if_fits(button_width("frame"));
  if (ImGui::Button("frame")) {
    frame_box(character_box(*state.clip, m_source_model));
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Frame the character (or double-click the view)");
  same_line_if_fits(button_width("frame motion"));
  if (ImGui::Button("frame motion") && state.clip) {
    // An additive clip moves as the clip it was made from: its layer's joints are not where it is drawn.
    const ImportedClip& moving = state.imported ? *state.imported : *state.clip;
    frame_box(clip_bounds(moving.skeleton, moving.clip));
  }
}

void ViewportPanel::handle_mouse(StudioState& state, glm::vec2 image_min, glm::vec2 image_size) {
  const ImGuiIO& io = ImGui::GetIO();
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  const glm::vec2 mouse(io.MousePos.x, io.MousePos.y);
  const glm::vec2 delta(io.MouseDelta.x, io.MouseDelta.y);
  if (hovered && io.MouseWheel != 0.f) m_camera.zoom(io.MouseWheel);
  if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
    m_press_position = mouse;
    m_dragged = false;
  }
  if (active && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
    if (glm::length(mouse - m_press_position) > kClickSlop) m_dragged = true;
    if (m_dragged) {
      if (io.KeyShift) {
        m_camera.pan(delta.x, delta.y, image_size.y);
      } else {
        m_camera.orbit(delta.x, delta.y);
      }
    }
  }
  if (active && (ImGui::IsMouseDown(ImGuiMouseButton_Right) || ImGui::IsMouseDown(ImGuiMouseButton_Middle))) {
    m_camera.pan(delta.x, delta.y, image_size.y);
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    frame_box(character_box(*state.clip, m_source_model));
    return;
  }
  if (!hovered || !ImGui::IsMouseReleased(ImGuiMouseButton_Left) || m_dragged) return;
  // A click: pick in the view it landed in, from the pose drawn there.
  const bool side_by_side = m_settings.mode == ViewMode::kSideBySide;
  const float view_width = side_by_side ? 0.5f * image_size.x : image_size.x;
  glm::vec2 local = mouse - image_min;
  const bool right_half = side_by_side && local.x >= view_width;
  if (right_half) local.x -= view_width;
  const std::vector<BoneShape>& shapes = (right_half || !side_by_side) && m_has_decoded ? m_decoded_shapes
                                                                                        : m_source_shapes;
  const glm::mat4 view_projection = m_camera.projection(view_width / image_size.y) * m_camera.view();
  const int32_t bone = pick_bone(shapes, view_projection, {view_width, image_size.y}, local, 8.f);
  if (bone >= 0) state.select_bone(bone);
}

void ViewportPanel::draw(StudioState& state, const DecodedFrame& decoded) {
  if (!ImGui::Begin("Viewport")) {
    ImGui::End();
    return;
  }
  if (!state.clip) {
    ImGui::TextDisabled("No clip open.");
    ImGui::End();
    return;
  }
  if (m_clip != state.clip.get()) {
    open_clip(*state.clip, m_framed != state.imported.get());
    m_framed = state.imported.get();
  }
  update_poses(state, decoded);
  draw_controls(state);
  draw_tolerance_controls(state);

  const ImVec2 available = ImGui::GetContentRegionAvail();
  const glm::vec2 image_size(std::max(available.x, 64.f), std::max(available.y - m_legend_height, 64.f));
  const ImVec2 image_min = ImGui::GetCursorScreenPos();
  m_aspect = view_aspect(image_size);
  render(state, static_cast<int>(image_size.x), static_cast<int>(image_size.y));
  // The invisible button takes the mouse, so dragging in the view does not move the window.
  ImGui::InvisibleButton("scene", ImVec2(image_size.x, image_size.y),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
                             ImGuiButtonFlags_MouseButtonMiddle);
  handle_mouse(state, {image_min.x, image_min.y}, image_size);
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const ImTextureID texture = reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m_renderer.texture()));
  // GL keeps the bottom row first: flip.
  draw_list->AddImage(texture, image_min, ImVec2(image_min.x + image_size.x, image_min.y + image_size.y),
                      ImVec2(0.f, 1.f), ImVec2(1.f, 0.f));

  m_view_rects.clear();
  const int x = static_cast<int>(image_min.x), y = static_cast<int>(image_min.y);
  const int width = static_cast<int>(image_size.x), height = static_cast<int>(image_size.y);
  if (m_settings.mode == ViewMode::kSideBySide) {
    m_view_rects.push_back({"original", x, y, width / 2, height});
    m_view_rects.push_back({"compressed", x + width / 2, y, width - width / 2, height});
    draw_list->AddLine(ImVec2(static_cast<float>(x + width / 2), image_min.y),
                       ImVec2(static_cast<float>(x + width / 2), image_min.y + image_size.y),
                       IM_COL32(90, 90, 100, 255), 2.f);
  } else {
    m_view_rects.push_back({"overlay", x, y, width, height});
  }
  draw_labels(state, {image_min.x, image_min.y});
  draw_legend(state);
  ImGui::End();
}

}  // namespace ks::studio
