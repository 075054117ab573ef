#pragma once
// MorphBuffers: a mesh's morph-target displacements on the GPU for
// skinned.vert, and the targets each draw applies. The displacements are one
// buffer texture of RGBA32F texels, per target one (position) or two
// (position, normal) texels per vertex of its run, so any number of targets
// fits GL 3.3 core; each draw uploads the list of targets whose weight is not
// 0, so a mesh at rest or without targets costs the shader a loop that does
// not run. Needs the window's GL context current for its whole life.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "app/studio/viewport/gl_program.h"
#include "app/studio/viewport/morph_weights.h"
#include "keystream/clip/skinned_mesh.h"

namespace ks::studio {

class MorphBuffers {
 public:
  MorphBuffers();
  ~MorphBuffers();
  MorphBuffers(const MorphBuffers&) = delete;
  MorphBuffers& operator=(const MorphBuffers&) = delete;

  /// Uploads the displacements of `mesh`'s targets; null or none: nothing morphs.
  void set_mesh(const SkinnedMesh* mesh);
  /// Targets uploaded: 0 when the mesh has none or they do not fit.
  size_t target_count() const { return m_targets.size(); }
  /// Why the mesh's targets are not drawn (past this GL's buffer texture
  /// size); empty when they are, or there are none.
  const std::string& problem() const { return m_problem; }

  /// For the next draw with `program` (bound): the targets of `weights` (one
  /// per target; any other count draws none) that are not 0, the textures
  /// bound to units `first_unit` and `first_unit + 1`, and the uniforms.
  void prepare_draw(const GlProgram& program, std::span<const float> weights, int first_unit);

 private:
  struct TargetRun {
    int32_t first_texel = 0;
    int32_t first_vertex = 0;
    int32_t vertex_count = 0;
  };

  unsigned m_delta_buffer = 0;
  unsigned m_delta_texture = 0;
  unsigned m_active_buffer = 0;
  unsigned m_active_texture = 0;
  int m_texels_per_vertex = 1;  // 2 when any target moves normals
  std::vector<TargetRun> m_targets;
  std::string m_problem;
  // Per draw, reused: the active targets and their texels (weight bits, first texel, first vertex, vertex count).
  std::vector<ActiveMorph> m_active;
  std::vector<std::array<int32_t, 4>> m_active_texels;
};

}  // namespace ks::studio
