#include "app/studio/viewport_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <glm/gtc/type_ptr.hpp>

#include "core/runtime/player.h"

namespace ks::studio {

namespace {

constexpr glm::vec3 kClearColor{0.16f, 0.17f, 0.19f};   // the viewport background
constexpr glm::vec3 kGridColor{0.27f, 0.28f, 0.31f};    // solid grid lines, one colour
constexpr glm::vec4 kNeutralBone{0.78f, 0.78f, 0.82f, 1.f};
constexpr glm::vec4 kOverlayOriginal{0.55f, 0.75f, 1.f, 0.35f};  // the translucent original over the compressed
constexpr float kLegendHeight = 58.f;
constexpr float kClickSlop = 3.f;  // pixels a press may move and still be a click

ImU32 to_imgui(glm::vec3 c, float alpha = 1.f) {
  // The ramp is linear; ImGui draws display colours.
  auto display = [](float v) { return std::pow(std::clamp(v, 0.f, 1.f), 1.f / 2.2f); };
  return ImGui::ColorConvertFloat4ToU32(ImVec4(display(c.r), display(c.g), display(c.b), alpha));
}

// What the character covers in a pose: its joints and, when it has a mesh,
// the skinned vertices (a robot's head or a fox's tail reaches far past
// the joints).
Box character_box(const ImportedClip& clip, std::span<const Transform> model) {
  Box box;
  for (const Transform& t : model) box.add({t.translation.x, t.translation.y, t.translation.z});
  if (!clip.mesh) return box;
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

void ViewportPanel::open_clip(const ImportedClip& clip) {
  m_clip = &clip;
  const size_t bones = clip.skeleton.bone_count();
  m_source_local.assign(bones, Transform{});
  m_source_model.assign(bones, Transform{});
  m_decoded_model.assign(bones, Transform{});
  m_source_palette.assign(bones, Mat4{});
  m_decoded_palette.assign(bones, Mat4{});
  m_errors_m.assign(bones, 0.f);
  m_renderer.set_mesh(clip.mesh ? &*clip.mesh : nullptr);
  // Frame the first pose; the size sets the grid spacing and the bone widths.
  source_pose_at(clip.clip, 0.f, m_source_local);
  local_to_model(clip.skeleton.parents, m_source_local, m_source_model);
  const Box box = character_box(clip, m_source_model);
  const glm::vec3 extent = box.hi - box.lo;
  m_character_size_m = std::max({extent.x, extent.y, extent.z, 1e-3f});
  frame_box(box);
  m_followed_root = m_source_model[0].translation;
}

void ViewportPanel::update_poses(const StudioState& state, std::span<const Transform> decoded_local) {
  const ImportedClip& clip = *state.clip;
  const std::span<const int32_t> parents = clip.skeleton.parents;
  source_pose_at(clip.clip, state.frame_time, m_source_local);
  local_to_model(parents, m_source_local, m_source_model);
  m_has_decoded = decoded_local.size() == m_source_local.size();
  if (m_has_decoded) {
    local_to_model(parents, decoded_local, m_decoded_model);
    object_space_errors(m_source_model, m_decoded_model, m_settings.vertex_distance_m, m_errors_m);
  } else {
    std::fill(m_errors_m.begin(), m_errors_m.end(), 0.f);
  }
  if (m_renderer.has_mesh()) {
    skinning_palette(clip.skeleton, m_source_model, m_source_palette);
    if (m_has_decoded) skinning_palette(clip.skeleton, m_decoded_model, m_decoded_palette);
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

void ViewportPanel::bone_instances(std::span<const BoneShape> shapes, bool colored, int selected,
                                   bool only_selected, std::vector<BoneInstance>& out) const {
  out.clear();
  // Thin inside a mesh, sturdier for a bare skeleton; never invisible.
  const float ratio = m_renderer.has_mesh() && m_settings.show_mesh ? 0.12f : 0.16f;
  const float min_width = 0.01f * m_character_size_m;
  const float tolerance = std::max(m_settings.tolerance_m, 1e-9f);
  for (const BoneShape& shape : shapes) {
    const float length = ks::length(shape.tail - shape.head);
    const bool is_selected = shape.bone == selected;
    if (only_selected && !is_selected) continue;
    float width = length > 0.f ? std::max(ratio * length, min_width) : 3.f * min_width;
    if (is_selected) width *= 1.6f;
    glm::vec4 color = kNeutralBone;
    if (colored) color = glm::vec4(error_color(m_errors_m[static_cast<size_t>(shape.bone)] / tolerance), 1.f);
    if (is_selected) color = glm::vec4(glm::mix(glm::vec3(color), glm::vec3(0.4f, 0.8f, 1.f), 0.6f), 1.f);
    out.push_back({bone_shape_matrix(shape.head, shape.tail, width), color});
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

  auto draw_view = [&](int x, int view_width, bool original, bool compressed) {
    m_renderer.set_view(x, 0, view_width, height, view, projection);
    if (m_settings.show_grid) m_renderer.draw_grid(m_camera.target, spacing, 40, kGridColor);
    if (compressed && mesh) {
      m_renderer.draw_mesh({m_decoded_palette, m_source_palette, by_error, m_settings.tolerance_m, glm::vec4(1.f)});
    }
    if (original && mesh) {
      const glm::vec4 tint = compressed ? kOverlayOriginal : glm::vec4(1.f);
      m_renderer.draw_mesh({m_source_palette, {}, false, m_settings.tolerance_m, tint});
    }
    // Over a mesh, the skeleton is optional; the selected bone always shows.
    const bool only_selected = mesh && !m_settings.skeleton_over_mesh;
    if (compressed) {
      bone_instances(m_decoded_shapes, by_error, selected, only_selected, m_instances);
      m_renderer.draw_bones(m_instances, glm::vec4(1.f), mesh);
    }
    if (original) {
      bone_instances(m_source_shapes, false, selected, only_selected, m_instances);
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
  int mode = static_cast<int>(m_settings.mode);
  ImGui::RadioButton("side by side", &mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("overlay", &mode, 1);
  m_settings.mode = static_cast<ViewMode>(mode);
  ImGui::SameLine(0.f, 16.f);
  int coloring = static_cast<int>(m_settings.coloring);
  ImGui::RadioButton("error colours", &coloring, 0);
  ImGui::SameLine();
  ImGui::RadioButton("material", &coloring, 1);
  m_settings.coloring = static_cast<ErrorColoring>(coloring);
  ImGui::SameLine(0.f, 16.f);
  if (state.clip && state.clip->mesh) {
    ImGui::Checkbox("mesh", &m_settings.show_mesh);
    ImGui::SameLine();
    ImGui::Checkbox("skeleton", &m_settings.skeleton_over_mesh);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Draw every bone through the mesh (the selected one always is)");
    ImGui::SameLine();
  }
  ImGui::Checkbox("grid", &m_settings.show_grid);
  ImGui::SameLine();
  ImGui::Checkbox("follow", &m_settings.follow_root);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The camera moves with the root bone");
  ImGui::SameLine();
  if (ImGui::Button("frame")) {
    frame_box(character_box(*state.clip, m_source_model));
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Frame the character (or double-click the view)");
  ImGui::SameLine();
  if (ImGui::Button("frame motion") && state.clip) {
    frame_box(clip_bounds(state.clip->skeleton, state.clip->clip));
  }
  ImGui::SameLine();
  if (ImGui::Button("reload shaders")) m_renderer.reload_shaders();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("shaders/ is also re-read whenever a file there changes");
}

void ViewportPanel::draw_tolerance_controls(const StudioState& state) {
  float tolerance_mm = m_settings.tolerance_m * 1000.f;
  ImGui::SetNextItemWidth(180.f);
  if (ImGui::SliderFloat("tolerance", &tolerance_mm, 0.01f, 100.f, "%.3g mm", ImGuiSliderFlags_Logarithmic)) {
    m_settings.tolerance_m = std::clamp(tolerance_mm, 0.001f, 10000.f) / 1000.f;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Object-space error drawn red. It stays put when the thresholds move,\n"
                      "so the colours show what a threshold change did. Ctrl+click to type.");
  }
  ImGui::SameLine();
  int distance = m_settings.vertex_distance_m < 0.5f ? 0 : 1;
  ImGui::SetNextItemWidth(110.f);
  if (ImGui::Combo("points at", &distance, "3 cm\0" "1 m\0")) m_settings.vertex_distance_m = distance == 0 ? 0.03f : 1.f;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("How far from each bone the virtual vertices are (as in Stats)");
  ImGui::SameLine();
  if (ImGui::Button("from thresholds")) {
    m_settings.tolerance_m = object_error_budget_m(state.settings.fit, m_settings.vertex_distance_m);
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("The error one bone makes at that distance with its own tracks at their\n"
                      "thresholds and no error above it: translation + rotation chord + scale.");
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
  if (bone >= 0) state.selected_bone = bone;
}

void ViewportPanel::draw_labels(const StudioState& state, glm::vec2 image_min) const {
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const ImU32 text = IM_COL32(230, 230, 235, 255);
  for (const ViewRect& rect : m_view_rects) {
    const ImVec2 corner(static_cast<float>(rect.x) + 8.f, static_cast<float>(rect.y) + 6.f);
    const char* label = rect.name == "original"     ? "original (source samples)"
                        : rect.name == "compressed" ? "compressed (decoded by the player)"
                                                    : "compressed, original translucent";
    draw_list->AddText(corner, text, label);
  }
  if (!m_has_decoded) {
    const ViewRect& last = m_view_rects.back();
    draw_list->AddText(ImVec2(static_cast<float>(last.x) + 8.f, static_cast<float>(last.y) + 24.f),
                       IM_COL32(255, 204, 77, 255), state.fitting ? "fitting..." : "no fit");
  }
  const size_t bone = static_cast<size_t>(state.selected_bone);
  if (bone < m_errors_m.size() && m_has_decoded) {
    char line[256];
    std::snprintf(line, sizeof(line), "%s: %.3f mm now", state.clip->skeleton.bone_names[bone].c_str(),
                  static_cast<double>(m_errors_m[bone] * 1000.f));
    const ViewRect& last = m_view_rects.back();
    draw_list->AddText(ImVec2(static_cast<float>(last.x) + 8.f, static_cast<float>(last.y + last.height) - 22.f),
                       text, line);
  }
  const std::string errors = m_renderer.shader_errors();
  if (!errors.empty()) {
    draw_list->AddText(ImVec2(image_min.x + 8.f, image_min.y + 44.f), IM_COL32(255, 90, 80, 255), errors.c_str());
  }
}

void ViewportPanel::draw_legend(const StudioState& state) const {
  // The ramp, 0 to 2x the tolerance, with its stops labelled.
  const float width = std::min(ImGui::GetContentRegionAvail().x, 420.f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float bar_height = 12.f;
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const float top = kErrorRampAt[3];
  for (int i = 0; i < 3; ++i) {
    const float x0 = origin.x + width * kErrorRampAt[i] / top, x1 = origin.x + width * kErrorRampAt[i + 1] / top;
    const glm::vec3 a(kErrorRampStops[i][0], kErrorRampStops[i][1], kErrorRampStops[i][2]);
    const glm::vec3 b(kErrorRampStops[i + 1][0], kErrorRampStops[i + 1][1], kErrorRampStops[i + 1][2]);
    draw_list->AddRectFilledMultiColor(ImVec2(x0, origin.y), ImVec2(x1, origin.y + bar_height), to_imgui(a),
                                       to_imgui(b), to_imgui(b), to_imgui(a));
  }
  const double tolerance_mm = m_settings.tolerance_m * 1000.0;
  for (int i = 0; i < 4; ++i) {
    const float x = origin.x + width * kErrorRampAt[i] / top;
    char label[32];
    std::snprintf(label, sizeof(label), "%.3g mm", tolerance_mm * kErrorRampAt[i]);
    const float text_width = ImGui::CalcTextSize(label).x;
    const float text_x = std::clamp(x - 0.5f * text_width, origin.x, origin.x + width - text_width);
    draw_list->AddLine(ImVec2(x, origin.y), ImVec2(x, origin.y + bar_height + 3.f), IM_COL32(230, 230, 235, 255));
    draw_list->AddText(ImVec2(text_x, origin.y + bar_height + 3.f), IM_COL32(230, 230, 235, 255), label);
  }
  ImGui::Dummy(ImVec2(width, bar_height + 20.f));
  ImGui::SameLine(0.f, 16.f);
  ImGui::BeginGroup();
  size_t worst = 0;
  for (size_t b = 1; b < m_errors_m.size(); ++b) {
    if (m_errors_m[b] > m_errors_m[worst]) worst = b;
  }
  if (m_has_decoded && !m_errors_m.empty()) {
    ImGui::Text("worst now: %s, %.3f mm (%.0f%% of tolerance)", state.clip->skeleton.bone_names[worst].c_str(),
                static_cast<double>(m_errors_m[worst]) * 1000.0,
                100.0 * static_cast<double>(m_errors_m[worst]) / std::max(m_settings.tolerance_m, 1e-9f));
  } else {
    ImGui::TextDisabled("no compressed pose yet");
  }
  ImGui::TextDisabled("object-space error, points %.0f cm from each bone",
                      static_cast<double>(m_settings.vertex_distance_m) * 100.0);
  ImGui::EndGroup();
}

void ViewportPanel::draw(StudioState& state, std::span<const Transform> decoded_local) {
  if (!ImGui::Begin("Viewport")) {
    ImGui::End();
    return;
  }
  if (!state.clip) {
    ImGui::TextDisabled("No clip open.");
    ImGui::End();
    return;
  }
  if (m_clip != state.clip.get()) open_clip(*state.clip);
  update_poses(state, decoded_local);
  draw_controls(state);
  draw_tolerance_controls(state);

  const ImVec2 available = ImGui::GetContentRegionAvail();
  const glm::vec2 image_size(std::max(available.x, 64.f), std::max(available.y - kLegendHeight, 64.f));
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
