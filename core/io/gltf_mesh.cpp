#include "keystream/io/gltf_mesh.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "keystream/io/gltf_accessor.h"
#include "keystream/io/gltf_morph_targets.h"
#include "keystream/io/gltf_texture.h"

namespace ks::gltf {

namespace {

// Vertices the meshes drawn without a skin may add, at least: a node
// hierarchy can draw one mesh from thousands of nodes, each a copy.
constexpr uint64_t kMinRigidVertices = uint64_t{1} << 18;
// ... or one per this many bytes of the file's buffers, where that is more
// (a position alone takes 12).
constexpr uint64_t kBufferBytesPerRigidVertex = 4;

struct PrimitiveData {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<std::array<uint32_t, 4>> joints;  // skin joint indices
  std::vector<std::array<float, 4>> weights;
  std::vector<uint32_t> indices;
  Vec3 color{0.8f, 0.8f, 0.8f};
  // Base colour texture (read_textures only): its image and the texture
  // coordinates it is mapped by; image -1 when the primitive has none.
  int image = -1;
  std::vector<std::array<float, 2>> uvs;
  std::string texture_problem;  // why a texture the material names is not used, for a warning
  PrimitiveTargets targets;     // morph displacements, when kept
  bool targets_dropped = false;  // kept mesh, but its displacements were past the budget
};

uint64_t buffer_bytes(const tinygltf::Model& model) {
  uint64_t bytes = 0;
  for (const tinygltf::Buffer& buffer : model.buffers) bytes += buffer.data.size();
  return bytes;
}

// The material's base colour texture as an image index and TEXCOORD set;
// -1 when it has none or names one that does not exist (`problem` says).
int base_color_image(const tinygltf::Model& model, const tinygltf::Material& material, int& tex_coord,
                     std::string& problem) {
  const tinygltf::TextureInfo& info = material.pbrMetallicRoughness.baseColorTexture;
  if (info.index < 0) return -1;
  if (static_cast<size_t>(info.index) >= model.textures.size()) {
    problem = "texture " + std::to_string(info.index) + " does not exist";
    return -1;
  }
  const int source = model.textures[static_cast<size_t>(info.index)].source;
  if (source < 0 || static_cast<size_t>(source) >= model.images.size()) {
    problem = "texture " + std::to_string(info.index) + " has no image";
    return -1;
  }
  if (info.texCoord < 0 || info.texCoord > 7) {
    problem = "texCoord " + std::to_string(info.texCoord) + " is not a TEXCOORD set";
    return -1;
  }
  tex_coord = info.texCoord;
  return source;
}

std::vector<Vec3> to_vec3(const std::vector<float>& v) {
  std::vector<Vec3> out(v.size() / 3);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {v[i * 3], v[i * 3 + 1], v[i * 3 + 2]};
  return out;
}

// Area-weighted vertex normals, for primitives that come without NORMAL.
std::vector<Vec3> compute_normals(const std::vector<Vec3>& positions, const std::vector<uint32_t>& indices) {
  std::vector<Vec3> normals(positions.size());
  for (size_t i = 0; i + 2 < indices.size(); i += 3) {
    const Vec3 a = positions[indices[i]], b = positions[indices[i + 1]], c = positions[indices[i + 2]];
    const Vec3 n = cross(b - a, c - a);
    for (size_t k = 0; k < 3; ++k) normals[indices[i + k]] = normals[indices[i + k]] + n;
  }
  for (Vec3& n : normals) {
    const float len = length(n);
    n = len > 0.f ? n * (1.f / len) : Vec3{0.f, 1.f, 0.f};
  }
  return normals;
}

// Reads and checks one triangle primitive. `skinned` asks for joints and
// weights, `textured` for the base colour texture's image and coordinates,
// `kept` for its morph displacements while `budget` lasts.
Result<PrimitiveData> read_primitive(const tinygltf::Model& model, const tinygltf::Primitive& primitive,
                                     const std::string& where, bool skinned, bool textured, bool kept,
                                     MorphBudget& budget) {
  PrimitiveData data;
  const auto position = primitive.attributes.find("POSITION");
  if (position == primitive.attributes.end()) return Error{where + " has no POSITION attribute"};
  Result<std::vector<float>> positions =
      read_floats(model, position->second, {TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " POSITION");
  if (!positions) return Error{positions.error()};
  data.positions = to_vec3(positions.value());
  const size_t vertex_count = data.positions.size();
  auto same_count = [&](size_t count, const char* what) -> Status {
    if (count == vertex_count) return {};
    return Error{where + " has " + std::to_string(count) + " " + what + " for " + std::to_string(vertex_count) +
                 " positions"};
  };

  if (primitive.indices >= 0) {
    Result<std::vector<uint32_t>> indices =
        read_unsigned(model, primitive.indices,
                      {TINYGLTF_TYPE_SCALAR,
                       {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                        TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT}},
                      where + " indices");
    if (!indices) return Error{indices.error()};
    data.indices = std::move(indices.value());
  } else {
    data.indices.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) data.indices[i] = static_cast<uint32_t>(i);
  }
  if (data.indices.size() % 3 != 0) {
    return Error{where + " has " + std::to_string(data.indices.size()) + " indices, not a whole number of triangles"};
  }
  for (size_t i = 0; i < data.indices.size(); ++i) {
    if (data.indices[i] >= vertex_count) {
      return Error{where + ": index " + std::to_string(i) + " is " + std::to_string(data.indices[i]) +
                   ", past the last of " + std::to_string(vertex_count) + " vertices"};
    }
  }

  if (const auto normal = primitive.attributes.find("NORMAL"); normal != primitive.attributes.end()) {
    Result<std::vector<float>> normals =
        read_floats(model, normal->second, {TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " NORMAL");
    if (!normals) return Error{normals.error()};
    data.normals = to_vec3(normals.value());
    if (Status s = same_count(data.normals.size(), "normals"); !s) return Error{s.error()};
    for (Vec3& n : data.normals) {
      const float len = length(n);
      n = len > 0.f ? n * (1.f / len) : Vec3{0.f, 1.f, 0.f};
    }
  } else {
    data.normals = compute_normals(data.positions, data.indices);
  }

  // Every target is checked; a drawn mesh keeps them while the budget lasts.
  const bool keep_targets = kept && budget.take(morph_bytes(primitive.targets.size(), vertex_count));
  Result<PrimitiveTargets> targets = read_primitive_targets(model, primitive, vertex_count, where, keep_targets);
  if (!targets) return Error{targets.error()};
  data.targets = std::move(targets.value());
  data.targets_dropped = kept && !keep_targets;

  if (primitive.material >= 0) {
    if (static_cast<size_t>(primitive.material) >= model.materials.size()) {
      return Error{where + " uses material " + std::to_string(primitive.material) + ", which does not exist"};
    }
    const std::vector<double>& factor =
        model.materials[static_cast<size_t>(primitive.material)].pbrMetallicRoughness.baseColorFactor;
    if (factor.size() >= 3 && std::isfinite(factor[0]) && std::isfinite(factor[1]) && std::isfinite(factor[2])) {
      data.color = {static_cast<float>(factor[0]), static_cast<float>(factor[1]), static_cast<float>(factor[2])};
    }
    int tex_coord = 0;
    const tinygltf::Material& material = model.materials[static_cast<size_t>(primitive.material)];
    const int image = textured ? base_color_image(model, material, tex_coord, data.texture_problem) : -1;
    if (image >= 0) {
      const std::string set = "TEXCOORD_" + std::to_string(tex_coord);
      const auto uv = primitive.attributes.find(set);
      if (uv == primitive.attributes.end()) {
        data.texture_problem = "its base colour texture is mapped by " + set + ", which it does not have";
      } else {
        // glTF allows float or normalized unsigned coordinates.
        const AccessorRequest rule{
            TINYGLTF_TYPE_VEC2,
            {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
             TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
            true};
        Result<std::vector<float>> uvs = read_floats(model, uv->second, rule, where + " " + set);
        if (!uvs) return Error{uvs.error()};
        if (Status s = same_count(uvs.value().size() / 2, "texture coordinates"); !s) return Error{s.error()};
        data.uvs.resize(vertex_count);
        for (size_t v = 0; v < vertex_count; ++v) data.uvs[v] = {uvs.value()[2 * v], uvs.value()[2 * v + 1]};
        data.image = image;
      }
    }
  }

  if (!skinned) return data;

  // Every JOINTS_n/WEIGHTS_n set; the four largest weights per vertex are kept.
  std::vector<std::vector<uint32_t>> joint_sets;
  std::vector<std::vector<float>> weight_sets;
  for (int set = 0;; ++set) {
    const auto j = primitive.attributes.find("JOINTS_" + std::to_string(set));
    const auto w = primitive.attributes.find("WEIGHTS_" + std::to_string(set));
    if (j == primitive.attributes.end() && w == primitive.attributes.end()) break;
    if (j == primitive.attributes.end() || w == primitive.attributes.end()) {
      return Error{where + " has JOINTS_" + std::to_string(set) + " or WEIGHTS_" + std::to_string(set) +
                   " without the other"};
    }
    Result<std::vector<uint32_t>> joints = read_unsigned(
        model, j->second,
        {TINYGLTF_TYPE_VEC4, {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}},
        where + " JOINTS_" + std::to_string(set));
    if (!joints) return Error{joints.error()};
    Result<std::vector<float>> weights = read_floats(
        model, w->second,
        {TINYGLTF_TYPE_VEC4,
         {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
         true},
        where + " WEIGHTS_" + std::to_string(set));
    if (!weights) return Error{weights.error()};
    if (Status s = same_count(joints.value().size() / 4, "joint sets"); !s) return Error{s.error()};
    if (Status s = same_count(weights.value().size() / 4, "weight sets"); !s) return Error{s.error()};
    joint_sets.push_back(std::move(joints.value()));
    weight_sets.push_back(std::move(weights.value()));
  }
  if (joint_sets.empty()) return Error{where + " is skinned but has no JOINTS_0/WEIGHTS_0"};

  data.joints.resize(vertex_count);
  data.weights.resize(vertex_count);
  for (size_t v = 0; v < vertex_count; ++v) {
    std::vector<std::pair<float, uint32_t>> influences;
    for (size_t s = 0; s < joint_sets.size(); ++s) {
      for (size_t k = 0; k < 4; ++k) {
        const float w = weight_sets[s][v * 4 + k];
        if (w < 0.f) return Error{where + ": vertex " + std::to_string(v) + " has a negative weight"};
        if (w > 0.f) influences.emplace_back(w, joint_sets[s][v * 4 + k]);
      }
    }
    std::stable_sort(influences.begin(), influences.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    influences.resize(std::min<size_t>(influences.size(), 4));
    float sum = 0.f;
    for (const auto& influence : influences) sum += influence.first;
    data.joints[v] = {0, 0, 0, 0};
    data.weights[v] = {0.f, 0.f, 0.f, 0.f};
    if (influences.empty()) {
      data.weights[v][0] = 1.f;  // unweighted vertex: follows the skin's first joint
      continue;
    }
    for (size_t k = 0; k < influences.size(); ++k) {
      data.joints[v][k] = influences[k].second;
      data.weights[v][k] = influences[k].first / sum;
    }
  }
  return data;
}

}  // namespace

Result<std::optional<SkinnedMesh>> read_meshes(const tinygltf::Model& model, const std::vector<char>& usable_skin,
                                               const std::vector<int>& bone_of_node, bool read_textures,
                                               std::vector<std::string>& warnings) {
  std::vector<char> skinned(model.meshes.size(), 0);  // some node draws the mesh with a usable skin
  std::vector<char> rigid(model.meshes.size(), 0);    // some node draws it in a file without skins
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const tinygltf::Node& node = model.nodes[i];
    if (node.mesh >= 0 && static_cast<size_t>(node.mesh) >= model.meshes.size()) {
      return Error{"node " + std::to_string(i) + " uses mesh " + std::to_string(node.mesh) + ", which does not exist"};
    }
    if (node.skin >= 0 && static_cast<size_t>(node.skin) >= model.skins.size()) {
      return Error{"node " + std::to_string(i) + " uses skin " + std::to_string(node.skin) + ", which does not exist"};
    }
    if (node.mesh >= 0 && node.skin >= 0 && usable_skin[static_cast<size_t>(node.skin)]) {
      skinned[static_cast<size_t>(node.mesh)] = 1;
    }
    if (node.mesh >= 0 && model.skins.empty()) rigid[static_cast<size_t>(node.mesh)] = 1;
  }
  if (Status s = check_morph_declarations(model); !s) return Error{s.error()};
  const uint64_t morph_limit = morph_byte_limit(model);
  MorphBudget read_budget{morph_limit}, draw_budget{morph_limit};

  // Every triangle primitive is read and checked; the drawn ones are kept.
  std::vector<std::vector<std::pair<std::string, PrimitiveData>>> primitives(model.meshes.size());
  size_t skipped_primitives = 0;
  for (size_t m = 0; m < model.meshes.size(); ++m) {
    for (size_t p = 0; p < model.meshes[m].primitives.size(); ++p) {
      const tinygltf::Primitive& primitive = model.meshes[m].primitives[p];
      if (primitive.mode != -1 && primitive.mode != TINYGLTF_MODE_TRIANGLES) {
        ++skipped_primitives;
        continue;
      }
      const std::string where = "mesh " + std::to_string(m) + " primitive " + std::to_string(p);
      const bool kept = skinned[m] != 0 || rigid[m] != 0;
      Result<PrimitiveData> data =
          read_primitive(model, primitive, where, skinned[m] != 0, read_textures, kept, read_budget);
      if (!data) return Error{data.error()};
      if (kept) primitives[m].emplace_back(where, std::move(data.value()));
    }
  }
  if (skipped_primitives > 0) {
    warnings.push_back(std::to_string(skipped_primitives) + " mesh primitives are not triangle lists and were skipped");
  }

  // Each node that draws a mesh with a usable skin adds its primitives, in
  // bind pose, their joints mapped through that node's skin to bones; in a
  // file without skins every node is a bone, and draws its mesh rigidly.
  std::optional<SkinnedMesh> result;
  const uint64_t rigid_vertex_limit = std::max(kMinRigidVertices, buffer_bytes(model) / kBufferBytesPerRigidVertex);
  uint64_t rigid_vertices_left = rigid_vertex_limit;
  size_t undrawn_nodes = 0, unmorphed_nodes = 0;
  std::vector<int> texture_of_image(model.images.size(), -2);  // -2: not decoded yet, -1: does not decode
  size_t untextured = 0;
  uint64_t texture_bytes = 0;  // decoded so far, against kMaxTextureBytes
  std::string texture_problem;
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    const tinygltf::Node& node = model.nodes[n];
    const bool skinned_node = node.mesh >= 0 && node.skin >= 0 && usable_skin[static_cast<size_t>(node.skin)];
    const bool rigid_node = node.mesh >= 0 && model.skins.empty() && bone_of_node[n] >= 0;
    if (!skinned_node && !rigid_node) continue;
    const auto& node_primitives = primitives[static_cast<size_t>(node.mesh)];
    if (rigid_node) {
      uint64_t vertices = 0;
      for (const auto& entry : node_primitives) vertices += entry.second.positions.size();
      if (vertices > rigid_vertices_left) {
        ++undrawn_nodes;
        continue;
      }
      rigid_vertices_left -= vertices;
    }
    const std::span<const int> joints = skinned_node
                                            ? std::span<const int>(model.skins[static_cast<size_t>(node.skin)].joints)
                                            : std::span<const int>();
    const uint32_t node_first_vertex = result ? static_cast<uint32_t>(result->positions.size()) : 0;
    std::vector<const PrimitiveTargets*> node_targets;
    bool targets_whole = true;
    for (const auto& [where, data] : node_primitives) {
      if (!result) result.emplace();
      SkinnedMesh& mesh = *result;
      const size_t base = mesh.positions.size();
      if (base + data.positions.size() > 0xffffffffu) return Error{"the skinned meshes have too many vertices"};
      node_targets.push_back(&data.targets);
      targets_whole = targets_whole && !data.targets_dropped;
      for (size_t v = 0; v < data.positions.size(); ++v) {
        // Rigid: the node's own bone carries every vertex.
        std::array<uint16_t, 4> bones{static_cast<uint16_t>(rigid_node ? bone_of_node[n] : 0), 0, 0, 0};
        const std::array<float, 4> weights = rigid_node ? std::array<float, 4>{1.f, 0.f, 0.f, 0.f} : data.weights[v];
        for (size_t k = 0; !rigid_node && k < 4; ++k) {
          const uint32_t joint = data.joints[v][k];
          if (data.weights[v][k] > 0.f && joint >= joints.size()) {
            return Error{where + ": vertex " + std::to_string(v) + " uses joint " + std::to_string(joint) +
                         " but the skin has " + std::to_string(joints.size()) + " joints"};
          }
          const int bone = joint < joints.size() ? bone_of_node[static_cast<size_t>(joints[joint])] : 0;
          bones[k] = static_cast<uint16_t>(data.weights[v][k] > 0.f ? bone : 0);
        }
        mesh.joints.push_back(bones);
        mesh.weights.push_back(weights);
        mesh.positions.push_back(data.positions[v]);
        mesh.normals.push_back(data.normals[v]);
        mesh.colors.push_back(data.color);
      }
      MeshPart part{static_cast<uint32_t>(mesh.indices.size()), static_cast<uint32_t>(data.indices.size()), -1};
      for (uint32_t index : data.indices) mesh.indices.push_back(static_cast<uint32_t>(base) + index);
      if (!read_textures) continue;
      // Every vertex gets coordinates (zeros where untextured), each image is decoded once.
      for (size_t v = 0; v < data.positions.size(); ++v) {
        mesh.uvs.push_back(data.uvs.empty() ? std::array<float, 2>{} : data.uvs[v]);
      }
      if (data.image >= 0) {
        int& texture = texture_of_image[static_cast<size_t>(data.image)];
        if (texture == -2 && texture_bytes >= kMaxTextureBytes) {
          texture = -1;
          texture_problem =
              "the textures before it hold " + std::to_string(texture_bytes >> 20) + " MB, the most kept";
        } else if (texture == -2) {
          Result<MeshTexture> decoded = decode_texture(model, data.image);
          if (decoded) texture_bytes += decoded.value().rgba.size();
          if (decoded) {
            texture = static_cast<int>(mesh.textures.size());
            mesh.textures.push_back(std::move(decoded.value()));
          } else {
            texture = -1;
            texture_problem = decoded.error();
          }
        }
        part.texture = texture;
      } else if (!data.texture_problem.empty()) {
        texture_problem = where + ": " + data.texture_problem;
      }
      untextured += part.texture < 0 && (data.image >= 0 || !data.texture_problem.empty()) ? 1 : 0;
      mesh.parts.push_back(part);
    }
    // The node's morph targets, over the vertices it just added, while the budget lasts.
    const std::vector<tinygltf::Primitive>& declared = model.meshes[static_cast<size_t>(node.mesh)].primitives;
    const size_t target_count = declared.empty() ? 0 : declared[0].targets.size();
    if (!result || node_targets.empty() || target_count == 0) continue;
    const uint64_t bytes = morph_bytes(target_count, result->positions.size() - node_first_vertex);
    if (targets_whole && draw_budget.take(bytes)) {
      append_node_targets(model, static_cast<int>(n), node_targets, node_first_vertex, *result);
    } else {
      ++unmorphed_nodes;
    }
  }
  if (undrawn_nodes > 0) {
    warnings.push_back("the meshes of " + std::to_string(undrawn_nodes) +
                       " nodes are not drawn: the file's meshes would make more vertices than the " +
                       std::to_string(rigid_vertex_limit) + " kept for its " + std::to_string(buffer_bytes(model)) +
                       " bytes of buffers");
  }
  if (unmorphed_nodes > 0) {
    warnings.push_back("the morph targets of " + std::to_string(unmorphed_nodes) +
                       " nodes are not drawn: their displacements would take more than the " +
                       std::to_string(morph_limit >> 20) + " MB kept for the file's " +
                       std::to_string(buffer_bytes(model)) + " bytes of buffers");
  }
  if (untextured > 0) {
    warnings.push_back(std::to_string(untextured) + " textured mesh primitives are drawn in their base colour: " +
                       texture_problem);
  }
  return result;
}

}  // namespace ks::gltf
