#include "app/studio/viewport/morph_buffers.h"

#include <glad/gl.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace ks::studio {

namespace {

// Allocates `bytes` (at least one texel, so the texture is never without
// storage) in `buffer` and fills it from `data` when given.
void fill_buffer(unsigned buffer, size_t bytes, const void* data, GLenum usage) {
  glBindBuffer(GL_TEXTURE_BUFFER, buffer);
  glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(std::max<size_t>(bytes, 16)), bytes > 0 ? data : nullptr,
               usage);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

}  // namespace

MorphBuffers::MorphBuffers() {
  glGenBuffers(1, &m_delta_buffer);
  glGenBuffers(1, &m_active_buffer);
  glGenTextures(1, &m_delta_texture);
  glGenTextures(1, &m_active_texture);
  fill_buffer(m_delta_buffer, 0, nullptr, GL_STATIC_DRAW);
  fill_buffer(m_active_buffer, 0, nullptr, GL_STREAM_DRAW);
  glBindTexture(GL_TEXTURE_BUFFER, m_delta_texture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, m_delta_buffer);
  glBindTexture(GL_TEXTURE_BUFFER, m_active_texture);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32I, m_active_buffer);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
}

MorphBuffers::~MorphBuffers() {
  const GLuint buffers[] = {m_delta_buffer, m_active_buffer};
  glDeleteBuffers(2, buffers);
  const GLuint textures[] = {m_delta_texture, m_active_texture};
  glDeleteTextures(2, textures);
}

void MorphBuffers::set_mesh(const SkinnedMesh* mesh) {
  m_targets.clear();
  m_problem.clear();
  const std::span<const MorphTarget> targets =
      mesh != nullptr ? std::span<const MorphTarget>(mesh->morph_targets) : std::span<const MorphTarget>();
  const bool normals =
      std::any_of(targets.begin(), targets.end(), [](const MorphTarget& t) { return !t.normal_deltas.empty(); });
  m_texels_per_vertex = normals ? 2 : 1;
  uint64_t texels = 0;
  for (const MorphTarget& target : targets) texels += uint64_t{target.position_deltas.size()} * m_texels_per_vertex;
  GLint max_texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
  uint64_t end_vertex = 0;  // the shader compares gl_VertexID, an int, with the runs
  for (const MorphTarget& target : targets) {
    end_vertex = std::max<uint64_t>(end_vertex, uint64_t{target.first_vertex} + target.position_deltas.size());
  }
  if (texels > static_cast<uint64_t>(max_texels) || end_vertex > uint64_t{std::numeric_limits<int32_t>::max()}) {
    m_problem = "the mesh's " + std::to_string(targets.size()) + " morph targets need " + std::to_string(texels) +
                " texels, more than this OpenGL's " + std::to_string(max_texels) + ": drawn without them";
    fill_buffer(m_delta_buffer, 0, nullptr, GL_STATIC_DRAW);
    return;
  }
  std::vector<float> data(texels * 4, 0.f);
  int32_t next_texel = 0;
  for (const MorphTarget& target : targets) {
    m_targets.push_back(
        {next_texel, static_cast<int32_t>(target.first_vertex), static_cast<int32_t>(target.position_deltas.size())});
    for (size_t v = 0; v < target.position_deltas.size(); ++v) {
      float* texel = &data[(static_cast<size_t>(next_texel) + v * static_cast<size_t>(m_texels_per_vertex)) * 4];
      const Vec3 p = target.position_deltas[v];
      texel[0] = p.x, texel[1] = p.y, texel[2] = p.z;
      if (normals && !target.normal_deltas.empty()) {
        const Vec3 n = target.normal_deltas[v];
        texel[4] = n.x, texel[5] = n.y, texel[6] = n.z;
      }
    }
    next_texel += static_cast<int32_t>(target.position_deltas.size()) * m_texels_per_vertex;
  }
  fill_buffer(m_delta_buffer, data.size() * sizeof(float), data.data(), GL_STATIC_DRAW);
}

void MorphBuffers::prepare_draw(const GlProgram& program, std::span<const float> weights, int first_unit) {
  m_active.clear();
  if (weights.size() == m_targets.size()) active_morphs(weights, m_active);
  m_active_texels.clear();
  for (const ActiveMorph& morph : m_active) {
    const TargetRun& run = m_targets[morph.target];
    int32_t weight_bits = 0;
    std::memcpy(&weight_bits, &morph.weight, sizeof weight_bits);  // the shader reads it back with intBitsToFloat
    m_active_texels.push_back({weight_bits, run.first_texel, run.first_vertex, run.vertex_count});
  }
  if (!m_active_texels.empty()) {
    fill_buffer(m_active_buffer, m_active_texels.size() * sizeof(m_active_texels[0]), m_active_texels.data(),
                GL_STREAM_DRAW);
  }
  // Both samplers get units of their own even when nothing morphs: samplers
  // of different types on one unit make the draw fail.
  glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(first_unit));
  glBindTexture(GL_TEXTURE_BUFFER, m_delta_texture);
  glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(first_unit + 1));
  glBindTexture(GL_TEXTURE_BUFFER, m_active_texture);
  glActiveTexture(GL_TEXTURE0);
  glUniform1i(program.uniform("u_morph_deltas"), first_unit);
  glUniform1i(program.uniform("u_morph_active"), first_unit + 1);
  glUniform1i(program.uniform("u_morph_count"), static_cast<GLint>(m_active_texels.size()));
  glUniform1i(program.uniform("u_morph_texels_per_vertex"), m_texels_per_vertex);
}

}  // namespace ks::studio
