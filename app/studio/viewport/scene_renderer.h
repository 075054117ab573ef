#pragma once
// SceneRenderer: draws the viewport's 3D scene with OpenGL 3.3 into an
// offscreen texture that the Viewport panel shows as an image: the ground
// grid, the skinned mesh (morphed and skinned on the GPU from a joint
// palette, in its material or in per-vertex colours the panel computes) and
// the bone shapes. It owns every GL object of the viewport and the shader
// programs from shaders/; the panel decides what is drawn where. Needs the
// window's GL context current for its whole life.

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include <glm/glm.hpp>

#include "app/studio/viewport/gl_program.h"
#include "app/studio/viewport/morph_buffers.h"
#include "keystream/clip/skinned_mesh.h"
#include "keystream/runtime/transform.h"

namespace ks::studio {

/// One draw of the skinned mesh.
struct MeshDraw {
  std::span<const Mat4> palette;            // the pose drawn: model * inverse bind per bone
  /// Linear colours, one per vertex, in place of the material's (the error
  /// colours); empty draws the material.
  std::span<const glm::vec3> vertex_colors;
  glm::vec4 tint{1.f};                      // multiplies the colour; alpha < 1 draws translucent, depth unwritten
  bool wireframe = false;                   // the triangles' edges only, pulled towards the eye to sit on a surface
  /// One weight per SkinnedMesh::morph_targets entry; empty (or another
  /// count) draws the mesh unmorphed.
  std::span<const float> morph_weights{};
};

/// One bone shape to draw: the unit octahedron (head at the origin, tail at
/// +Y) placed by `shape`, in a linear colour with alpha.
struct BoneInstance {
  glm::mat4 shape{1.f};
  glm::vec4 color{1.f};
};

/// The matrix placing the unit bone octahedron from `head` to `tail`,
/// `width_m` across at its widest. A zero-length shape becomes a joint marker
/// `width_m` tall.
glm::mat4 bone_shape_matrix(Vec3 head, Vec3 tail, float width_m);

class SceneRenderer {
 public:
  explicit SceneRenderer(const std::filesystem::path& shader_dir);
  ~SceneRenderer();
  SceneRenderer(const SceneRenderer&) = delete;
  SceneRenderer& operator=(const SceneRenderer&) = delete;

  /// Rebuilds any program whose files changed (cheap: compares file times).
  void reload_shaders_if_changed();
  /// Rebuilds every program now.
  void reload_shaders();
  /// The compiler's complaints, one program per paragraph; empty when all build.
  std::string shader_errors() const;

  /// Uploads `mesh` (bind pose) for the draws that follow; null removes it.
  void set_mesh(const SkinnedMesh* mesh);
  bool has_mesh() const { return m_index_count > 0; }
  /// Why the mesh's morph targets are not drawn; empty when they are (or it has none).
  const std::string& morph_problem() const { return m_morphs.problem(); }

  /// Makes the target `width` x `height` pixels, binds it and clears it.
  void begin_frame(int width, int height, glm::vec3 clear_color);
  /// The rectangle of the target the next draws go to (pixels, from the
  /// top-left) and the camera they are seen through.
  void set_view(int x, int y, int width, int height, const glm::mat4& view, const glm::mat4& projection);
  /// Lines every `spacing_m` in the plane y = 0 around `centre`, `half_lines` to each side.
  void draw_grid(glm::vec3 centre, float spacing_m, int half_lines, glm::vec3 color);
  void draw_mesh(const MeshDraw& draw);
  /// `xray` draws over everything (no depth test), for a skeleton inside a mesh.
  void draw_bones(std::span<const BoneInstance> bones, glm::vec4 tint, bool xray);
  /// Restores the window's framebuffer; the texture then holds the frame.
  void end_frame();

  /// The colour texture (GL name), bottom row first as GL stores it.
  unsigned texture() const { return m_color_texture; }

 private:
  void create_target(int width, int height);
  void destroy_target();
  void upload_palette(std::span<const Mat4> palette);

  GlProgram m_mesh_program;
  GlProgram m_bone_program;
  GlProgram m_grid_program;
  glm::mat4 m_view{1.f};
  glm::mat4 m_projection{1.f};
  int m_view_rect[4] = {0, 0, 0, 0};  // GL viewport of the current view (x, y from the bottom, w, h)
  int m_target_width = 0;
  int m_target_height = 0;
  unsigned m_framebuffer = 0;
  unsigned m_color_texture = 0;
  unsigned m_depth_buffer = 0;
  // Mesh: vertices, indices, and the palette as a buffer texture. The
  // second vertex array reads the colour from m_mesh_colors instead.
  unsigned m_mesh_vao = 0;
  unsigned m_mesh_colored_vao = 0;
  unsigned m_mesh_vertices = 0;
  unsigned m_mesh_colors = 0;
  unsigned m_mesh_indices = 0;
  int m_index_count = 0;
  size_t m_vertex_count = 0;
  // Base colour textures (sRGB, mipmapped) and the runs of triangles each
  // draws; one untextured part when the mesh has none.
  std::vector<unsigned> m_textures;
  std::vector<MeshPart> m_parts;
  unsigned m_palette_buffer = 0;
  unsigned m_palette_texture = 0;
  MorphBuffers m_morphs;
  // Bones: the unit octahedron and a per-instance buffer.
  unsigned m_bone_vao = 0;
  unsigned m_bone_vertices = 0;
  unsigned m_bone_instances = 0;
  // Grid: lines rebuilt per draw.
  unsigned m_grid_vao = 0;
  unsigned m_grid_vertices = 0;
};

}  // namespace ks::studio
