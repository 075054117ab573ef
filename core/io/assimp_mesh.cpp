#include "keystream/io/assimp_mesh.h"

#include <assimp/material.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <glm/gtc/type_ptr.hpp>
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>

#include "keystream/clip/excerpt.h"
#include "keystream/io/assimp_morph.h"

namespace ks::assimp {

namespace {

// Relative difference two meshes' bind matrices for one bone may have.
constexpr double kBindTolerance = 1e-4;
constexpr Vec3 kDefaultColor{0.8f, 0.8f, 0.8f};

glm::dmat4 to_glm(const aiMatrix4x4& m) {
  double columns[16];
  column_major(m, columns);
  return glm::make_mat4(columns);
}

Mat4 to_mat4(const glm::dmat4& m) {
  Mat4 out;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) out.m[c * 4 + r] = static_cast<float>(m[c][r]);
  }
  return out;
}

bool close(const glm::dmat4& a, const glm::dmat4& b) {
  double largest = 0.0, size = 1.0;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      largest = std::max(largest, std::fabs(a[c][r] - b[c][r]));
      size = std::max(size, std::fabs(a[c][r]));
    }
  }
  return largest <= kBindTolerance * size;
}

bool finite(const glm::dmat4& m) {
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      if (!std::isfinite(m[c][r])) return false;
    }
  }
  return true;
}

Vec3 to_vec3(const glm::dvec3& v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

Vec3 mesh_color(const aiScene& scene, const aiMesh& mesh) {
  if (mesh.mMaterialIndex >= scene.mNumMaterials || scene.mMaterials[mesh.mMaterialIndex] == nullptr) {
    return kDefaultColor;
  }
  aiColor4D diffuse;
  if (scene.mMaterials[mesh.mMaterialIndex]->Get(AI_MATKEY_COLOR_DIFFUSE, diffuse) != AI_SUCCESS) return kDefaultColor;
  const auto channel = [](float v) { return std::isfinite(v) ? std::clamp(v, 0.f, 1.f) : 0.8f; };
  return {channel(diffuse.r), channel(diffuse.g), channel(diffuse.b)};
}

// Everything the two passes share.
struct Context {
  const aiScene& scene;
  const NodeTree& tree;
  SceneSkeleton& skeleton;
  glm::dmat4 to_metres;           // C: file units to metres
  glm::dmat4 root_scale;          // S: the root's uniform scale, divided out of the bones
  std::vector<glm::dmat4> world;  // every node's rest transform in the file's units
  std::vector<glm::dmat4> bind;   // per bone, its inverse bind matrix once set
  std::vector<char> bound;        // per bone, whether `bind` is set
};

// The bone at or above `node`: the root is always a bone.
int bone_above(const Context& context, int node) {
  while (node >= 0 && context.skeleton.bone_of_node[static_cast<size_t>(node)] < 0) {
    node = context.tree.parents[static_cast<size_t>(node)];
  }
  return node < 0 ? 0 : context.skeleton.bone_of_node[static_cast<size_t>(node)];
}

// W'_b: a bone's rest transform as the skeleton holds it, C W S^-1 C^-1
// (C: file units to metres; S: the root's unit scale, moved out of the
// bones): its origin is C times the file's, its axes the file's without S.
glm::dmat4 bone_rest(const Context& context, int bone) {
  const size_t node = static_cast<size_t>(context.skeleton.node_of_bone[static_cast<size_t>(bone)]);
  return context.to_metres * context.world[node] * glm::inverse(context.root_scale) * glm::inverse(context.to_metres);
}

// Where a vertex of mesh space goes to be drawn rigidly with `bone`: model
// space such that the bone's joint matrix (rest transform times inverse
// bind) puts it at its rest position, C W_node v. Sets the bone's inverse
// bind matrix to the inverse of its rest transform when nothing has.
glm::dmat4 rigid_placement(Context& context, int node, int bone) {
  const glm::dmat4 rest = bone_rest(context, bone);
  if (!context.bound[static_cast<size_t>(bone)]) {
    context.bind[static_cast<size_t>(bone)] = glm::inverse(rest);
    context.bound[static_cast<size_t>(bone)] = 1;
  }
  return glm::inverse(context.bind[static_cast<size_t>(bone)]) * glm::inverse(rest) * context.to_metres *
         context.world[static_cast<size_t>(node)];
}

// Pass 1: a skinned mesh's inverse bind matrices (C S Offset W_mesh^-1 C^-1,
// so that the joint matrix C W S^-1 C^-1 times it maps the vertex placed at
// C W_mesh v where assimp's skinning, W Offset v, puts it, in metres),
// checked against the ones set;
// false, with a warning, when the mesh cannot be drawn.
bool bind_skinned_mesh(Context& context, const aiMesh& mesh, int mesh_node, std::vector<std::string>& warnings) {
  const std::string name = "mesh '" + excerpt(mesh.mName.C_Str()) + "'";
  const glm::dmat4 unplace =
      glm::inverse(context.world[static_cast<size_t>(mesh_node)]) * glm::inverse(context.to_metres);
  std::vector<std::pair<int, glm::dmat4>> binds;
  for (unsigned b = 0; b < mesh.mNumBones; ++b) {
    const aiBone& bone = *mesh.mBones[b];
    const int node = find_node(context.tree, bone.mName);
    const int skeleton_bone = node < 0 ? -1 : context.skeleton.bone_of_node[static_cast<size_t>(node)];
    if (skeleton_bone < 0) {
      warnings.push_back(name + ": bone '" + excerpt(bone.mName.C_Str()) +
                         "' is not a bone of the skeleton (no node, or a helper); the mesh is not drawn");
      return false;
    }
    const glm::dmat4 bind = context.to_metres * context.root_scale * to_glm(bone.mOffsetMatrix) * unplace;
    if (!finite(bind)) {
      warnings.push_back(name + ": bone '" + excerpt(bone.mName.C_Str()) +
                         "' has an offset matrix that is not finite; the mesh is not drawn");
      return false;
    }
    const size_t index = static_cast<size_t>(skeleton_bone);
    if (context.bound[index] && !close(context.bind[index], bind)) {
      warnings.push_back(name + " binds bone '" + excerpt(context.skeleton.skeleton.bone_names[index]) +
                         "' differently from an earlier mesh; the mesh is not drawn");
      return false;
    }
    binds.emplace_back(skeleton_bone, bind);
  }
  for (const auto& [bone, bind] : binds) {
    context.bind[static_cast<size_t>(bone)] = bind;
    context.bound[static_cast<size_t>(bone)] = 1;
  }
  return true;
}

struct Counts {
  size_t unweighted = 0;       // vertices of skinned meshes no bone weighs
  size_t other_faces = 0;      // points and lines
  size_t skipped_targets = 0;  // morph targets assimp gave with no usable positions
  size_t degenerate = 0;       // meshes whose placement is not finite (a node scaled to 0)
};

// Pass 2: appends one mesh's triangles, placed by `placement` (model space
// from mesh space); `rigid_bone` >= 0 for a mesh without bones.
void append_mesh(Context& context, const aiMesh& mesh, unsigned mesh_index, int mesh_node, int rigid_bone,
                 SkinnedMesh& out, Counts& counts) {
  const size_t first = out.positions.size();
  const size_t n = mesh.mNumVertices;
  // The vertices no bone weighs (all of a rigid mesh's) go with this bone.
  const int fallback_bone = rigid_bone >= 0 ? rigid_bone : bone_above(context, mesh_node);
  const glm::dmat4 skinned_placement = context.to_metres * context.world[static_cast<size_t>(mesh_node)];
  const glm::dmat4 rigid = rigid_placement(context, mesh_node, fallback_bone);
  if (!finite(skinned_placement) || !finite(rigid)) {
    ++counts.degenerate;
    return;
  }

  std::vector<std::array<std::pair<float, uint16_t>, 4>> influences(n);
  for (auto& slots : influences) slots.fill({0.f, 0});
  for (unsigned b = 0; rigid_bone < 0 && b < mesh.mNumBones; ++b) {
    const aiBone& bone = *mesh.mBones[b];
    const uint16_t index =
        static_cast<uint16_t>(context.skeleton.bone_of_node[static_cast<size_t>(find_node(context.tree, bone.mName))]);
    for (unsigned w = 0; w < bone.mNumWeights; ++w) {
      const aiVertexWeight& weight = bone.mWeights[w];
      if (weight.mVertexId >= n || !(weight.mWeight > 0.f) || !std::isfinite(weight.mWeight)) continue;
      auto& slots = influences[weight.mVertexId];
      auto smallest = std::min_element(slots.begin(), slots.end());
      if (weight.mWeight > smallest->first) *smallest = {weight.mWeight, index};
    }
  }
  const Vec3 color = mesh_color(context.scene, mesh);
  std::vector<char> weighed_vertices(n, 0);  // placed by skinned_placement, for the morph targets
  for (size_t v = 0; v < n; ++v) {
    auto& slots = influences[v];
    float total = 0.f;
    for (const auto& slot : slots) total += slot.first;
    const bool weighed = total > 0.f;
    weighed_vertices[v] = weighed;
    if (rigid_bone < 0 && !weighed) ++counts.unweighted;
    const glm::dmat4& placement = weighed ? skinned_placement : rigid;
    const aiVector3D& p = mesh.mVertices[v];
    out.positions.push_back(to_vec3(glm::dvec3(placement * glm::dvec4(p.x, p.y, p.z, 1.0))));
    glm::dvec3 normal(0.0, 1.0, 0.0);
    if (mesh.mNormals != nullptr) {
      const aiVector3D& q = mesh.mNormals[v];
      normal = glm::transpose(glm::inverse(glm::dmat3(placement))) * glm::dvec3(q.x, q.y, q.z);
      const double length = glm::length(normal);
      normal = length > 1e-12 && std::isfinite(length) ? normal / length : glm::dvec3(0.0, 1.0, 0.0);
    }
    out.normals.push_back(to_vec3(normal));
    out.colors.push_back(color);
    std::array<uint16_t, 4> joints{};
    std::array<float, 4> weights{};
    if (weighed) {
      std::sort(slots.begin(), slots.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (size_t k = 0; k < 4; ++k) joints[k] = slots[k].second, weights[k] = slots[k].first / total;
    } else {
      joints[0] = static_cast<uint16_t>(fallback_bone);
      weights[0] = 1.f;
    }
    out.joints.push_back(joints);
    out.weights.push_back(weights);
  }
  for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
    const aiFace& face = mesh.mFaces[f];
    if (face.mNumIndices != 3 || face.mIndices == nullptr) {
      ++counts.other_faces;
      continue;
    }
    if (face.mIndices[0] >= n || face.mIndices[1] >= n || face.mIndices[2] >= n) {
      ++counts.other_faces;  // validation refuses these; never index past the vertices
      continue;
    }
    for (int k = 0; k < 3; ++k) out.indices.push_back(static_cast<uint32_t>(first + face.mIndices[k]));
  }
  if (mesh.mNumAnimMeshes > 0) {
    append_morph_targets(mesh, mesh_index, node_name(context.tree, static_cast<size_t>(mesh_node)),
                         static_cast<uint32_t>(first), skinned_placement, rigid, weighed_vertices, out,
                         counts.skipped_targets);
  }
}

}  // namespace

Result<std::optional<SkinnedMesh>> read_meshes(const aiScene& scene, const NodeTree& tree, double metres_per_unit,
                                               SceneSkeleton& skeleton, std::vector<std::string>& warnings) {
  const size_t bones = skeleton.skeleton.bone_count();
  const double s = skeleton.root_scale;
  Context context{
      scene,
      tree,
      skeleton,
      glm::dmat4(glm::dvec4(metres_per_unit, 0, 0, 0), glm::dvec4(0, metres_per_unit, 0, 0),
                 glm::dvec4(0, 0, metres_per_unit, 0), glm::dvec4(0, 0, 0, 1)),
      glm::dmat4(glm::dvec4(s, 0, 0, 0), glm::dvec4(0, s, 0, 0), glm::dvec4(0, 0, s, 0), glm::dvec4(0, 0, 0, 1)),
      std::vector<glm::dmat4>(tree.nodes.size()),
      std::vector<glm::dmat4>(bones, glm::dmat4(1.0)),
      std::vector<char>(bones, 0)};
  for (size_t node = 0; node < tree.nodes.size(); ++node) {
    const glm::dmat4 local = to_glm(tree.nodes[node]->mTransformation);
    context.world[node] =
        tree.parents[node] < 0 ? local : context.world[static_cast<size_t>(tree.parents[node])] * local;
  }

  // Every instance of every mesh, by node, in the scene's order; a skinned
  // mesh once (its bones, not its node, place it).
  struct Instance {
    unsigned mesh;
    int node;
  };
  std::vector<Instance> skinned, rigid;
  std::vector<char> seen(scene.mNumMeshes, 0);
  for (size_t node = 0; node < tree.nodes.size(); ++node) {
    const aiNode& source = *tree.nodes[node];
    for (unsigned k = 0; k < source.mNumMeshes; ++k) {
      const unsigned mesh = source.mMeshes[k];
      if (mesh >= scene.mNumMeshes || scene.mMeshes[mesh] == nullptr) {
        return Error{"node '" + excerpt(node_name(tree, node)) + "' uses mesh " + std::to_string(mesh) +
                     ", which does not exist"};
      }
      if (is_generated_skeleton_mesh(scene, *scene.mMeshes[mesh])) continue;
      if (scene.mMeshes[mesh]->mNumBones == 0) {
        rigid.push_back({mesh, static_cast<int>(node)});
      } else if (!seen[mesh]) {
        seen[mesh] = 1;
        skinned.push_back({mesh, static_cast<int>(node)});
      }
    }
  }

  std::vector<Instance> drawn_skinned;
  for (const Instance& instance : skinned) {
    if (bind_skinned_mesh(context, *scene.mMeshes[instance.mesh], instance.node, warnings)) {
      drawn_skinned.push_back(instance);
    }
  }
  SkinnedMesh mesh;
  Counts counts;
  for (const Instance& instance : drawn_skinned) {
    append_mesh(context, *scene.mMeshes[instance.mesh], instance.mesh, instance.node, -1, mesh, counts);
  }
  for (const Instance& instance : rigid) {
    append_mesh(context, *scene.mMeshes[instance.mesh], instance.mesh, instance.node,
                bone_above(context, instance.node), mesh, counts);
  }
  if (counts.unweighted > 0) {
    warnings.push_back(
        std::to_string(counts.unweighted) +
        " vertices of skinned meshes have no bone weight; each moves with the bone above its mesh's node");
  }
  if (counts.other_faces > 0) {
    warnings.push_back(std::to_string(counts.other_faces) +
                       " faces that are not triangles (points, lines) are not drawn");
  }
  if (counts.skipped_targets > 0) {
    warnings.push_back(std::to_string(counts.skipped_targets) +
                       " morph targets have positions that are missing, of another vertex count or not finite, "
                       "and are not drawn");
  }
  if (counts.degenerate > 0) {
    warnings.push_back(std::to_string(counts.degenerate) +
                       " meshes hang from a node whose transform cannot be inverted (a scale of 0) and are not drawn");
  }
  if (mesh.indices.empty()) return std::optional<SkinnedMesh>{};

  skeleton.skeleton.inverse_bind.resize(bones);
  for (size_t b = 0; b < bones; ++b) skeleton.skeleton.inverse_bind[b] = to_mat4(context.bind[b]);
  if (!drawn_skinned.empty()) {
    const aiMesh& first = *scene.mMeshes[drawn_skinned.front().mesh];
    for (unsigned b = 0; b < first.mNumBones; ++b) {
      const int bone = skeleton.bone_of_node[static_cast<size_t>(find_node(tree, first.mBones[b]->mName))];
      if (std::find(skeleton.skeleton.skin_joints.begin(), skeleton.skeleton.skin_joints.end(), bone) ==
          skeleton.skeleton.skin_joints.end()) {
        skeleton.skeleton.skin_joints.push_back(bone);
      }
    }
  }
  return std::optional<SkinnedMesh>(std::move(mesh));
}

}  // namespace ks::assimp
