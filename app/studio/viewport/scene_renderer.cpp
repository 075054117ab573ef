#include "app/studio/viewport/scene_renderer.h"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/gtc/type_ptr.hpp>

#include "app/studio/viewport/viewport_scene.h"

namespace ks::studio {

namespace {

// The mesh as the vertex shader reads it, interleaved.
struct MeshVertex {
  float position[3];
  float normal[3];
  float color[3];
  uint16_t joints[4];
  float weights[4];
  float uv[2];
};

// Where the bone octahedron is widest, as a fraction of its length: the
// shape artists know from DCC tools, thick at the joint, pointed at the tail.
constexpr float kBoneWaist = 0.2f;

// The unit octahedron: head at the origin, tail at +Y, a square waist of
// width 1 at y = kBoneWaist. Eight triangles, non-indexed.
std::vector<glm::vec3> unit_octahedron() {
  const glm::vec3 head(0.f), tail(0.f, 1.f, 0.f);
  const glm::vec3 waist[4] = {{0.5f, kBoneWaist, 0.f}, {0.f, kBoneWaist, 0.5f}, {-0.5f, kBoneWaist, 0.f},
                              {0.f, kBoneWaist, -0.5f}};
  std::vector<glm::vec3> triangles;
  for (int i = 0; i < 4; ++i) {
    const glm::vec3 a = waist[i], b = waist[(i + 1) % 4];
    triangles.insert(triangles.end(), {head, b, a, a, b, tail});
  }
  return triangles;
}

void set_matrix(int location, const glm::mat4& m) {
  if (location >= 0) glUniformMatrix4fv(location, 1, GL_FALSE, glm::value_ptr(m));
}

}  // namespace

glm::mat4 bone_shape_matrix(Vec3 head, Vec3 tail, float width_m) {
  const glm::vec3 h(head.x, head.y, head.z), t(tail.x, tail.y, tail.z);
  const glm::vec3 axis = t - h;
  const float length = glm::length(axis);
  if (!(length > 1e-7f)) {
    // A joint marker: the octahedron centred on the joint, as tall as it is wide.
    glm::mat4 m = glm::mat4(1.f);
    m[0] = glm::vec4(width_m, 0.f, 0.f, 0.f);
    m[1] = glm::vec4(0.f, width_m, 0.f, 0.f);
    m[2] = glm::vec4(0.f, 0.f, width_m, 0.f);
    m[3] = glm::vec4(h - glm::vec3(0.f, 0.5f * width_m, 0.f), 1.f);
    return m;
  }
  const glm::vec3 y = axis / length;
  // Any vector not parallel to the axis makes the other two columns.
  const glm::vec3 helper = std::fabs(y.y) < 0.9f ? glm::vec3(0.f, 1.f, 0.f) : glm::vec3(1.f, 0.f, 0.f);
  const glm::vec3 x = glm::normalize(glm::cross(helper, y));
  const glm::vec3 z = glm::cross(x, y);
  glm::mat4 m(1.f);
  m[0] = glm::vec4(x * width_m, 0.f);
  m[1] = glm::vec4(axis, 0.f);
  m[2] = glm::vec4(z * width_m, 0.f);
  m[3] = glm::vec4(h, 1.f);
  return m;
}

SceneRenderer::SceneRenderer(const std::filesystem::path& shader_dir)
    : m_mesh_program(shader_dir / "skinned.vert", shader_dir / "skinned.frag"),
      m_bone_program(shader_dir / "bone.vert", shader_dir / "bone.frag"),
      m_grid_program(shader_dir / "grid.vert", shader_dir / "grid.frag") {
  reload_shaders();

  // Mesh: attributes as skinned.vert declares them, twice: colours from the
  // vertices (material) or from their own buffer (per-vertex colours).
  glGenVertexArrays(1, &m_mesh_vao);
  glGenVertexArrays(1, &m_mesh_colored_vao);
  glGenBuffers(1, &m_mesh_vertices);
  glGenBuffers(1, &m_mesh_colors);
  glGenBuffers(1, &m_mesh_indices);
  const GLsizei stride = sizeof(MeshVertex);
  for (const unsigned vao : {m_mesh_vao, m_mesh_colored_vao}) {
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_mesh_vertices);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m_mesh_indices);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, position)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, normal)));
    glEnableVertexAttribArray(3);
    glVertexAttribIPointer(3, 4, GL_UNSIGNED_SHORT, stride, reinterpret_cast<void*>(offsetof(MeshVertex, joints)));
    glEnableVertexAttribArray(4);
    glVertexAttribPointer(4, 4, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, weights)));
    glEnableVertexAttribArray(5);
    glVertexAttribPointer(5, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, uv)));
    glEnableVertexAttribArray(2);
    if (vao == m_mesh_vao) {
      glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, color)));
    } else {
      glBindBuffer(GL_ARRAY_BUFFER, m_mesh_colors);
      glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, sizeof(glm::vec3), nullptr);
    }
  }

  // Palette: a buffer texture of RGBA32F texels, four per matrix.
  glGenBuffers(1, &m_palette_buffer);
  glGenTextures(1, &m_palette_texture);
  glBindBuffer(GL_TEXTURE_BUFFER, m_palette_buffer);
  glBufferData(GL_TEXTURE_BUFFER, sizeof(Mat4), nullptr, GL_STREAM_DRAW);
  glBindTexture(GL_TEXTURE_BUFFER, m_palette_texture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, m_palette_buffer);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);

  // Bones: the octahedron, then per instance a matrix (four vec4 columns) and a colour.
  const std::vector<glm::vec3> octahedron = unit_octahedron();
  glGenVertexArrays(1, &m_bone_vao);
  glGenBuffers(1, &m_bone_vertices);
  glGenBuffers(1, &m_bone_instances);
  glBindVertexArray(m_bone_vao);
  glBindBuffer(GL_ARRAY_BUFFER, m_bone_vertices);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(octahedron.size() * sizeof(glm::vec3)), octahedron.data(),
               GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(glm::vec3), nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, m_bone_instances);
  for (GLuint column = 0; column < 4; ++column) {
    glEnableVertexAttribArray(1 + column);
    glVertexAttribPointer(1 + column, 4, GL_FLOAT, GL_FALSE, sizeof(BoneInstance),
                          reinterpret_cast<void*>(offsetof(BoneInstance, shape) + column * sizeof(glm::vec4)));
    glVertexAttribDivisor(1 + column, 1);
  }
  glEnableVertexAttribArray(5);
  glVertexAttribPointer(5, 4, GL_FLOAT, GL_FALSE, sizeof(BoneInstance),
                        reinterpret_cast<void*>(offsetof(BoneInstance, color)));
  glVertexAttribDivisor(5, 1);

  // Grid.
  glGenVertexArrays(1, &m_grid_vao);
  glGenBuffers(1, &m_grid_vertices);
  glBindVertexArray(m_grid_vao);
  glBindBuffer(GL_ARRAY_BUFFER, m_grid_vertices);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(glm::vec3), nullptr);

  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

SceneRenderer::~SceneRenderer() {
  destroy_target();
  glDeleteVertexArrays(1, &m_mesh_vao);
  glDeleteVertexArrays(1, &m_mesh_colored_vao);
  glDeleteVertexArrays(1, &m_bone_vao);
  glDeleteVertexArrays(1, &m_grid_vao);
  const GLuint buffers[] = {m_mesh_vertices, m_mesh_colors, m_mesh_indices, m_bone_vertices, m_bone_instances, m_grid_vertices,
                            m_palette_buffer};
  glDeleteBuffers(static_cast<GLsizei>(std::size(buffers)), buffers);
  glDeleteTextures(1, &m_palette_texture);
  if (!m_textures.empty()) glDeleteTextures(static_cast<GLsizei>(m_textures.size()), m_textures.data());
}

void SceneRenderer::reload_shaders_if_changed() {
  m_mesh_program.reload_if_changed();
  m_bone_program.reload_if_changed();
  m_grid_program.reload_if_changed();
}

void SceneRenderer::reload_shaders() {
  m_mesh_program.reload();
  m_bone_program.reload();
  m_grid_program.reload();
}

std::string SceneRenderer::shader_errors() const {
  std::string errors;
  for (const GlProgram* program : {&m_mesh_program, &m_bone_program, &m_grid_program}) {
    if (program->error().empty()) continue;
    if (!errors.empty()) errors += "\n\n";
    errors += program->error();
  }
  return errors;
}

void SceneRenderer::set_mesh(const SkinnedMesh* mesh) {
  m_index_count = 0;
  m_vertex_count = 0;
  if (!m_textures.empty()) glDeleteTextures(static_cast<GLsizei>(m_textures.size()), m_textures.data());
  m_textures.clear();
  m_parts.clear();
  m_morphs.set_mesh(mesh != nullptr && !mesh->indices.empty() ? mesh : nullptr);
  if (mesh == nullptr || mesh->indices.empty()) return;
  std::vector<MeshVertex> vertices(mesh->vertex_count());
  for (size_t i = 0; i < vertices.size(); ++i) {
    MeshVertex& v = vertices[i];
    const Vec3 p = mesh->positions[i];
    const Vec3 n = i < mesh->normals.size() ? mesh->normals[i] : Vec3{0.f, 1.f, 0.f};
    const Vec3 c = i < mesh->colors.size() ? mesh->colors[i] : Vec3{0.7f, 0.7f, 0.7f};
    v = MeshVertex{{p.x, p.y, p.z}, {n.x, n.y, n.z}, {c.x, c.y, c.z}, {}, {}, {}};
    std::copy(mesh->joints[i].begin(), mesh->joints[i].end(), v.joints);
    std::copy(mesh->weights[i].begin(), mesh->weights[i].end(), v.weights);
    if (i < mesh->uvs.size()) std::copy(mesh->uvs[i].begin(), mesh->uvs[i].end(), v.uv);
  }
  // sRGB storage: the shader samples linear values, as the vertex colours are.
  m_textures.resize(mesh->textures.size());
  if (!m_textures.empty()) glGenTextures(static_cast<GLsizei>(m_textures.size()), m_textures.data());
  for (size_t t = 0; t < m_textures.size(); ++t) {
    const MeshTexture& texture = mesh->textures[t];
    glBindTexture(GL_TEXTURE_2D, m_textures[t]);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, static_cast<GLsizei>(texture.width),
                 static_cast<GLsizei>(texture.height), 0, GL_RGBA, GL_UNSIGNED_BYTE, texture.rgba.data());
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  m_parts = mesh->parts;
  if (m_parts.empty()) m_parts.push_back({0, static_cast<uint32_t>(mesh->indices.size()), -1});
  glBindVertexArray(m_mesh_vao);
  glBindBuffer(GL_ARRAY_BUFFER, m_mesh_vertices);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(MeshVertex)), vertices.data(),
               GL_STATIC_DRAW);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh->indices.size() * sizeof(uint32_t)),
               mesh->indices.data(), GL_STATIC_DRAW);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  m_index_count = static_cast<int>(mesh->indices.size());
  m_vertex_count = vertices.size();
}

void SceneRenderer::create_target(int width, int height) {
  destroy_target();
  glGenTextures(1, &m_color_texture);
  glBindTexture(GL_TEXTURE_2D, m_color_texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenRenderbuffers(1, &m_depth_buffer);
  glBindRenderbuffer(GL_RENDERBUFFER, m_depth_buffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glGenFramebuffers(1, &m_framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m_color_texture, 0);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, m_depth_buffer);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  m_target_width = width;
  m_target_height = height;
}

void SceneRenderer::destroy_target() {
  if (m_framebuffer != 0) glDeleteFramebuffers(1, &m_framebuffer);
  if (m_color_texture != 0) glDeleteTextures(1, &m_color_texture);
  if (m_depth_buffer != 0) glDeleteRenderbuffers(1, &m_depth_buffer);
  m_framebuffer = m_color_texture = m_depth_buffer = 0;
  m_target_width = m_target_height = 0;
}

void SceneRenderer::begin_frame(int width, int height, glm::vec3 clear_color) {
  width = std::max(width, 1);
  height = std::max(height, 1);
  if (width != m_target_width || height != m_target_height) create_target(width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
  // ImGui's renderer leaves scissoring and blending on; this scene sets its own state.
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glViewport(0, 0, width, height);
  glClearColor(clear_color.r, clear_color.g, clear_color.b, 1.f);
  glDepthMask(GL_TRUE);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
}

void SceneRenderer::set_view(int x, int y, int width, int height, const glm::mat4& view, const glm::mat4& projection) {
  m_view_rect[0] = x;
  m_view_rect[1] = m_target_height - y - height;
  m_view_rect[2] = width;
  m_view_rect[3] = height;
  glViewport(m_view_rect[0], m_view_rect[1], width, height);
  m_view = view;
  m_projection = projection;
}

void SceneRenderer::draw_grid(glm::vec3 centre, float spacing_m, int half_lines, glm::vec3 color) {
  if (m_grid_program.id() == 0 || !(spacing_m > 0.f) || half_lines <= 0) return;
  // Snap to the spacing so the lines stay put under a moving centre.
  const float cx = std::round(centre.x / spacing_m) * spacing_m;
  const float cz = std::round(centre.z / spacing_m) * spacing_m;
  const float extent = spacing_m * static_cast<float>(half_lines);
  std::vector<glm::vec3> lines;
  lines.reserve(static_cast<size_t>(4 * (2 * half_lines + 1)));
  for (int i = -half_lines; i <= half_lines; ++i) {
    const float offset = spacing_m * static_cast<float>(i);
    lines.insert(lines.end(), {{cx + offset, 0.f, cz - extent}, {cx + offset, 0.f, cz + extent},
                               {cx - extent, 0.f, cz + offset}, {cx + extent, 0.f, cz + offset}});
  }
  glUseProgram(m_grid_program.id());
  set_matrix(m_grid_program.uniform("u_view"), m_view);
  set_matrix(m_grid_program.uniform("u_projection"), m_projection);
  glUniform3f(m_grid_program.uniform("u_color"), color.r, color.g, color.b);
  glBindVertexArray(m_grid_vao);
  glBindBuffer(GL_ARRAY_BUFFER, m_grid_vertices);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(lines.size() * sizeof(glm::vec3)), lines.data(),
               GL_STREAM_DRAW);
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(lines.size()));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
}

void SceneRenderer::upload_palette(std::span<const Mat4> palette) {
  glBindBuffer(GL_TEXTURE_BUFFER, m_palette_buffer);
  glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(std::max<size_t>(palette.size(), 1) * sizeof(Mat4)),
               palette.empty() ? nullptr : palette.data(), GL_STREAM_DRAW);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

void SceneRenderer::draw_mesh(const MeshDraw& draw) {
  if (m_mesh_program.id() == 0 || m_index_count == 0 || draw.palette.empty()) return;
  const bool colored = !draw.vertex_colors.empty() && draw.vertex_colors.size() == m_vertex_count;
  upload_palette(draw.palette);
  if (colored) {
    glBindBuffer(GL_ARRAY_BUFFER, m_mesh_colors);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(draw.vertex_colors.size_bytes()), draw.vertex_colors.data(),
                 GL_STREAM_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }
  const GlProgram& p = m_mesh_program;
  glUseProgram(p.id());
  set_matrix(p.uniform("u_view"), m_view);
  set_matrix(p.uniform("u_projection"), m_projection);
  glUniform4fv(p.uniform("u_tint"), 1, glm::value_ptr(draw.tint));
  // Units: 0 the palette, 1 the base colour, 2 and 3 the morph targets.
  m_morphs.prepare_draw(p, draw.morph_weights, 2);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, m_palette_texture);
  glUniform1i(p.uniform("u_palette"), 0);
  const bool translucent = draw.tint.a < 1.f;
  if (translucent) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
  }
  if (draw.wireframe) {
    // Edges of a pose that coincides with a surface drawn before win the
    // depth test by the offset, not by chance.
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    glEnable(GL_POLYGON_OFFSET_LINE);
    glPolygonOffset(-1.f, -1.f);
  }
  glBindVertexArray(colored ? m_mesh_colored_vao : m_mesh_vao);
  // Error colours replace the material, textures included.
  glActiveTexture(GL_TEXTURE1);
  glUniform1i(p.uniform("u_base_color"), 1);
  for (const MeshPart& part : m_parts) {
    const bool textured = !colored && part.texture >= 0 && static_cast<size_t>(part.texture) < m_textures.size();
    glBindTexture(GL_TEXTURE_2D, textured ? m_textures[static_cast<size_t>(part.texture)] : 0);
    glUniform1i(p.uniform("u_textured"), textured ? 1 : 0);
    glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(part.index_count), GL_UNSIGNED_INT,
                   reinterpret_cast<void*>(uintptr_t{part.first_index} * sizeof(uint32_t)));
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(0);
  if (draw.wireframe) {
    glDisable(GL_POLYGON_OFFSET_LINE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
  }
  if (translucent) {
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
  }
  glBindTexture(GL_TEXTURE_BUFFER, 0);
}

void SceneRenderer::draw_bones(std::span<const BoneInstance> bones, glm::vec4 tint, bool xray) {
  if (m_bone_program.id() == 0 || bones.empty()) return;
  glUseProgram(m_bone_program.id());
  set_matrix(m_bone_program.uniform("u_view"), m_view);
  set_matrix(m_bone_program.uniform("u_projection"), m_projection);
  glUniform4fv(m_bone_program.uniform("u_tint"), 1, glm::value_ptr(tint));
  glBindVertexArray(m_bone_vao);
  glBindBuffer(GL_ARRAY_BUFFER, m_bone_instances);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(bones.size_bytes()), bones.data(), GL_STREAM_DRAW);
  const bool translucent = tint.a < 1.f ||
                           std::any_of(bones.begin(), bones.end(), [](const BoneInstance& b) { return b.color.a < 1.f; });
  if (translucent) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  }
  if (xray) {
    // Over the mesh, but the bones still hide one another: clear this
    // view's depth only (glClear ignores the viewport, not the scissor).
    glEnable(GL_SCISSOR_TEST);
    glScissor(m_view_rect[0], m_view_rect[1], m_view_rect[2], m_view_rect[3]);
    glClear(GL_DEPTH_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
  }
  glDrawArraysInstanced(GL_TRIANGLES, 0, 24, static_cast<GLsizei>(bones.size()));
  if (translucent) glDisable(GL_BLEND);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
}

void SceneRenderer::end_frame() {
  glUseProgram(0);
  glDisable(GL_DEPTH_TEST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace ks::studio
