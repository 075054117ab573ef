#include "core/offline/gltf_import.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <unordered_set>

#include "core/offline/gltf_accessor.h"
#include "core/offline/gltf_schema.h"

namespace ks {

namespace {

using gltf::AccessorRequest;

constexpr float kFallbackRateHz = 30.f;
// Bones x frames beyond this would need gigabytes; refuse rather than crash.
constexpr uint64_t kMaxBoneFrames = uint64_t{1} << 26;

// Images are not needed to import animation; skipping them also means a
// missing texture (interpolation_test.gltf references one) is not an error.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int,
                void*) {
  return true;
}

// Largest file we read into memory.
constexpr uintmax_t kMaxFileBytes = uintmax_t{1} << 30;

Result<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error{"no such file"};
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{"cannot read the file: " + ec.message()};
  if (size > kMaxFileBytes) return Error{"the file is larger than 1 GiB"};
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) return Error{"cannot read the file"};
  return bytes;
}

// The JSON text of a .gltf file, or the JSON chunk of a .glb; empty when the
// container is broken (tinygltf then says how).
std::string_view json_text(const std::string& bytes, bool binary) {
  if (!binary) return bytes;
  // GLB: magic, version, length, then chunk 0 (length, type "JSON", data).
  if (bytes.size() < 20 || bytes.compare(0, 4, "glTF") != 0 || bytes.compare(16, 4, "JSON") != 0) return {};
  uint32_t chunk_length = 0;
  std::memcpy(&chunk_length, bytes.data() + 12, 4);
  if (chunk_length > bytes.size() - 20) return {};
  return std::string_view(bytes).substr(20, chunk_length);
}

Result<tinygltf::Model> load_model(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool binary = ext == ".glb";
  Result<std::string> bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};

  // tinygltf drops properties of the wrong type without a word; check first.
  const std::string_view text = json_text(bytes.value(), binary);
  const nlohmann::json document = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!document.is_discarded()) {
    if (Status s = gltf::check_json_types(document); !s) return Error{"not a valid glTF 2.0 file: " + s.error()};
  }

  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(skip_image, nullptr);
  tinygltf::Model model;
  std::string error;
  std::string warning;
  const std::string base_dir = path.parent_path().string();
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.value().data());
  const auto size = static_cast<unsigned int>(bytes.value().size());
  const bool ok = binary ? loader.LoadBinaryFromMemory(&model, &error, &warning, data, size, base_dir)
                         : loader.LoadASCIIFromString(&model, &error, &warning, bytes.value().data(), size, base_dir);
  if (!ok) {
    while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
    return Error{"not a readable glTF 2.0 file: " + (error.empty() ? warning : error)};
  }
  return model;
}

// ---------------------------------------------------------------------------
// Node graph

// Parent of every node (-1 for roots), after checking that children exist,
// that no node has two parents and that there is no cycle.
Result<std::vector<int>> node_parents(const tinygltf::Model& model) {
  const size_t n = model.nodes.size();
  std::vector<int> parents(n, -1);
  for (size_t i = 0; i < n; ++i) {
    for (int child : model.nodes[i].children) {
      if (child < 0 || static_cast<size_t>(child) >= n) {
        return Error{"node " + std::to_string(i) + " has child " + std::to_string(child) + ", which does not exist (" +
                     std::to_string(n) + " nodes)"};
      }
      if (parents[static_cast<size_t>(child)] != -1 || static_cast<size_t>(child) == i) {
        return Error{"node " + std::to_string(child) + " has more than one parent (nodes " +
                     std::to_string(parents[static_cast<size_t>(child)]) + " and " + std::to_string(i) +
                     "); the node hierarchy must be a tree"};
      }
      parents[static_cast<size_t>(child)] = static_cast<int>(i);
    }
  }
  // With one parent each, a walk up longer than the node count is a cycle.
  for (size_t i = 0; i < n; ++i) {
    size_t steps = 0;
    for (int p = parents[i]; p != -1; p = parents[static_cast<size_t>(p)]) {
      if (++steps > n) {
        return Error{"node " + std::to_string(i) + " is its own ancestor (the hierarchy has a cycle)"};
      }
    }
  }
  for (size_t s = 0; s < model.scenes.size(); ++s) {
    for (int root : model.scenes[s].nodes) {
      if (root < 0 || static_cast<size_t>(root) >= n) {
        return Error{"scene " + std::to_string(s) + " lists node " + std::to_string(root) + ", which does not exist"};
      }
    }
  }
  return parents;
}

// Rest transform of a node from its matrix or its T/R/S properties.
Result<Transform> node_rest_transform(const tinygltf::Node& node, size_t index) {
  const std::string where = "node " + std::to_string(index);
  Transform t;
  if (!node.matrix.empty()) {
    if (node.matrix.size() != 16) return Error{where + ": matrix has " + std::to_string(node.matrix.size()) + " values, not 16"};
    const std::vector<double>& m = node.matrix;  // column-major
    for (double v : m) {
      if (!std::isfinite(v)) return Error{where + ": matrix is not finite"};
    }
    double sx = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    const double sy = std::sqrt(m[4] * m[4] + m[5] * m[5] + m[6] * m[6]);
    const double sz = std::sqrt(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    const double det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                       m[8] * (m[1] * m[6] - m[5] * m[2]);
    if (det < 0) sx = -sx;  // a mirror is carried by the scale
    t.translation = {static_cast<float>(m[12]), static_cast<float>(m[13]), static_cast<float>(m[14])};
    t.scale = {static_cast<float>(sx), static_cast<float>(sy), static_cast<float>(sz)};
    if (sx != 0 && sy != 0 && sz != 0) {
      // Rotation matrix r[row][col] from the scaled-out columns.
      const double r00 = m[0] / sx, r10 = m[1] / sx, r20 = m[2] / sx;
      const double r01 = m[4] / sy, r11 = m[5] / sy, r21 = m[6] / sy;
      const double r02 = m[8] / sz, r12 = m[9] / sz, r22 = m[10] / sz;
      double qx, qy, qz, qw;
      const double trace = r00 + r11 + r22;
      if (trace > 0) {
        const double s = 2.0 * std::sqrt(trace + 1.0);
        qw = 0.25 * s, qx = (r21 - r12) / s, qy = (r02 - r20) / s, qz = (r10 - r01) / s;
      } else if (r00 > r11 && r00 > r22) {
        const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r00 - r11 - r22));
        qw = (r21 - r12) / s, qx = 0.25 * s, qy = (r01 + r10) / s, qz = (r02 + r20) / s;
      } else if (r11 > r22) {
        const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r11 - r00 - r22));
        qw = (r02 - r20) / s, qx = (r01 + r10) / s, qy = 0.25 * s, qz = (r12 + r21) / s;
      } else {
        const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r22 - r00 - r11));
        qw = (r10 - r01) / s, qx = (r02 + r20) / s, qy = (r12 + r21) / s, qz = 0.25 * s;
      }
      t.rotation = normalize(Quat{static_cast<float>(qx), static_cast<float>(qy), static_cast<float>(qz),
                                  static_cast<float>(qw)});
    }
    return t;
  }
  if (!node.translation.empty()) {
    if (node.translation.size() != 3) return Error{where + ": translation does not have 3 values"};
    t.translation = {static_cast<float>(node.translation[0]), static_cast<float>(node.translation[1]),
                     static_cast<float>(node.translation[2])};
  }
  if (!node.rotation.empty()) {
    if (node.rotation.size() != 4) return Error{where + ": rotation does not have 4 values"};
    const Quat q{static_cast<float>(node.rotation[0]), static_cast<float>(node.rotation[1]),
                 static_cast<float>(node.rotation[2]), static_cast<float>(node.rotation[3])};
    if (!is_finite(q) || !(length(q) > 0.5f)) return Error{where + ": rotation is not a unit quaternion"};
    t.rotation = normalize(q);
  }
  if (!node.scale.empty()) {
    if (node.scale.size() != 3) return Error{where + ": scale does not have 3 values"};
    t.scale = {static_cast<float>(node.scale[0]), static_cast<float>(node.scale[1]), static_cast<float>(node.scale[2])};
  }
  if (!is_finite(t.translation) || !is_finite(t.scale)) return Error{where + ": translation or scale is not finite"};
  return t;
}

// ---------------------------------------------------------------------------
// Skin and bones

Result<int> choose_skin(const tinygltf::Model& model, std::vector<std::string>& warnings) {
  if (model.skins.empty()) return -1;
  int chosen = -1;
  for (const tinygltf::Node& node : model.nodes) {
    if (node.skin >= 0 && node.mesh >= 0) {
      chosen = node.skin;
      break;
    }
  }
  if (chosen < 0) chosen = 0;
  if (static_cast<size_t>(chosen) >= model.skins.size()) {
    return Error{"a node uses skin " + std::to_string(chosen) + ", which does not exist"};
  }
  if (model.skins.size() > 1) {
    warnings.push_back("the file has " + std::to_string(model.skins.size()) + " skins; skin " +
                       std::to_string(chosen) + " is imported");
  }
  return chosen;
}

// Bones in parent-before-child order: the skin's joints and their ancestors,
// or every node when there is no skin.
Result<std::vector<int>> bone_nodes(const tinygltf::Model& model, const std::vector<int>& parents, int skin) {
  const size_t n = model.nodes.size();
  std::vector<char> wanted(n, skin < 0 ? 1 : 0);
  if (skin >= 0) {
    const tinygltf::Skin& s = model.skins[static_cast<size_t>(skin)];
    if (s.joints.empty()) return Error{"skin " + std::to_string(skin) + " has no joints"};
    for (int joint : s.joints) {
      if (joint < 0 || static_cast<size_t>(joint) >= n) {
        return Error{"skin " + std::to_string(skin) + " lists joint node " + std::to_string(joint) +
                     ", which does not exist"};
      }
      for (int a = joint; a != -1 && !wanted[static_cast<size_t>(a)]; a = parents[static_cast<size_t>(a)]) {
        wanted[static_cast<size_t>(a)] = 1;
      }
    }
  }
  // Depth-first from each root, children in file order (iterative: a deep
  // hierarchy must not overflow the stack).
  std::vector<int> order;
  std::vector<int> stack;
  for (size_t root = 0; root < n; ++root) {
    if (parents[root] != -1 || !wanted[root]) continue;
    stack.push_back(static_cast<int>(root));
    while (!stack.empty()) {
      const int node = stack.back();
      stack.pop_back();
      order.push_back(node);
      const std::vector<int>& children = model.nodes[static_cast<size_t>(node)].children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        if (wanted[static_cast<size_t>(*it)]) stack.push_back(*it);
      }
    }
  }
  if (order.empty()) return Error{"the file has no nodes"};
  if (order.size() > 65535) return Error{"the skeleton would have " + std::to_string(order.size()) + " bones; at most 65535 are supported"};
  return order;
}

Result<Skeleton> build_skeleton(const tinygltf::Model& model, const std::vector<int>& parents,
                                const std::vector<int>& bones, int skin, std::vector<int>& bone_of_node) {
  Skeleton skeleton;
  bone_of_node.assign(model.nodes.size(), -1);
  for (size_t b = 0; b < bones.size(); ++b) bone_of_node[static_cast<size_t>(bones[b])] = static_cast<int>(b);

  std::unordered_set<std::string> used;
  for (size_t b = 0; b < bones.size(); ++b) {
    const size_t node = static_cast<size_t>(bones[b]);
    std::string name = model.nodes[node].name.empty() ? "node_" + std::to_string(node) : model.nodes[node].name;
    for (int suffix = 2; used.count(name); ++suffix) {
      name = (model.nodes[node].name.empty() ? "node_" + std::to_string(node) : model.nodes[node].name) + "_" +
             std::to_string(suffix);
    }
    used.insert(name);
    skeleton.bone_names.push_back(name);
    skeleton.parents.push_back(parents[node] < 0 ? -1 : bone_of_node[static_cast<size_t>(parents[node])]);
    Result<Transform> rest = node_rest_transform(model.nodes[node], node);
    if (!rest) return Error{rest.error()};
    skeleton.rest_pose.push_back(rest.value());
  }

  if (skin >= 0) {
    const tinygltf::Skin& s = model.skins[static_cast<size_t>(skin)];
    skeleton.inverse_bind.assign(bones.size(), Mat4{});
    for (int joint : s.joints) skeleton.skin_joints.push_back(bone_of_node[static_cast<size_t>(joint)]);
    if (s.inverseBindMatrices >= 0) {
      Result<std::vector<float>> matrices =
          gltf::read_floats(model, s.inverseBindMatrices, {TINYGLTF_TYPE_MAT4, {TINYGLTF_COMPONENT_TYPE_FLOAT}},
                            "skin " + std::to_string(skin) + " inverse bind matrices");
      if (!matrices) return Error{matrices.error()};
      if (matrices.value().size() < s.joints.size() * 16) {
        return Error{"skin " + std::to_string(skin) + " has " + std::to_string(matrices.value().size() / 16) +
                     " inverse bind matrices for " + std::to_string(s.joints.size()) + " joints"};
      }
      for (size_t j = 0; j < s.joints.size(); ++j) {
        Mat4& m = skeleton.inverse_bind[static_cast<size_t>(bone_of_node[static_cast<size_t>(s.joints[j])])];
        std::copy_n(matrices.value().begin() + static_cast<std::ptrdiff_t>(j * 16), 16, m.m);
      }
    }
  }
  return skeleton;
}

// ---------------------------------------------------------------------------
// Meshes

struct PrimitiveData {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<std::array<uint32_t, 4>> joints;  // skin joint indices
  std::vector<std::array<float, 4>> weights;
  std::vector<uint32_t> indices;
  Vec3 color{0.8f, 0.8f, 0.8f};
};

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

// Reads and checks one triangle primitive. `skinned` asks for joints and weights.
Result<PrimitiveData> read_primitive(const tinygltf::Model& model, const tinygltf::Primitive& primitive,
                                     const std::string& where, bool skinned) {
  PrimitiveData data;
  const auto position = primitive.attributes.find("POSITION");
  if (position == primitive.attributes.end()) return Error{where + " has no POSITION attribute"};
  Result<std::vector<float>> positions =
      gltf::read_floats(model, position->second, {TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " POSITION");
  if (!positions) return Error{positions.error()};
  data.positions = to_vec3(positions.value());
  const size_t vertex_count = data.positions.size();
  auto same_count = [&](size_t count, const char* what) -> Status {
    if (count == vertex_count) return {};
    return Error{where + " has " + std::to_string(count) + " " + what + " for " + std::to_string(vertex_count) +
                 " positions"};
  };

  if (primitive.indices >= 0) {
    Result<std::vector<uint32_t>> indices = gltf::read_unsigned(
        model, primitive.indices,
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
        gltf::read_floats(model, normal->second, {TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " NORMAL");
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

  if (primitive.material >= 0) {
    if (static_cast<size_t>(primitive.material) >= model.materials.size()) {
      return Error{where + " uses material " + std::to_string(primitive.material) + ", which does not exist"};
    }
    const std::vector<double>& factor =
        model.materials[static_cast<size_t>(primitive.material)].pbrMetallicRoughness.baseColorFactor;
    if (factor.size() >= 3 && std::isfinite(factor[0]) && std::isfinite(factor[1]) && std::isfinite(factor[2])) {
      data.color = {static_cast<float>(factor[0]), static_cast<float>(factor[1]), static_cast<float>(factor[2])};
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
    Result<std::vector<uint32_t>> joints = gltf::read_unsigned(
        model, j->second,
        {TINYGLTF_TYPE_VEC4, {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}},
        where + " JOINTS_" + std::to_string(set));
    if (!joints) return Error{joints.error()};
    Result<std::vector<float>> weights = gltf::read_floats(
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

// Checks every triangle primitive of every mesh (so that a malformed file is
// refused even where the broken mesh is not the skinned one) and gathers the
// primitives of the nodes that use `skin` into one mesh.
Result<std::optional<SkinnedMesh>> read_meshes(const tinygltf::Model& model, int skin,
                                               const std::vector<int>& bone_of_node,
                                               std::vector<std::string>& warnings) {
  std::vector<char> skinned_mesh(model.meshes.size(), 0);
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const tinygltf::Node& node = model.nodes[i];
    if (node.mesh >= 0 && static_cast<size_t>(node.mesh) >= model.meshes.size()) {
      return Error{"node " + std::to_string(i) + " uses mesh " + std::to_string(node.mesh) + ", which does not exist"};
    }
    if (node.skin >= 0 && static_cast<size_t>(node.skin) >= model.skins.size()) {
      return Error{"node " + std::to_string(i) + " uses skin " + std::to_string(node.skin) + ", which does not exist"};
    }
    if (node.mesh >= 0 && skin >= 0 && node.skin == skin) skinned_mesh[static_cast<size_t>(node.mesh)] = 1;
  }

  std::optional<SkinnedMesh> result;
  size_t skipped_primitives = 0;
  for (size_t m = 0; m < model.meshes.size(); ++m) {
    for (size_t p = 0; p < model.meshes[m].primitives.size(); ++p) {
      const tinygltf::Primitive& primitive = model.meshes[m].primitives[p];
      if (primitive.mode != -1 && primitive.mode != TINYGLTF_MODE_TRIANGLES) {
        ++skipped_primitives;
        continue;
      }
      const std::string where = "mesh " + std::to_string(m) + " primitive " + std::to_string(p);
      Result<PrimitiveData> data = read_primitive(model, primitive, where, skinned_mesh[m] != 0);
      if (!data) return Error{data.error()};
      if (!skinned_mesh[m]) continue;

      if (!result) result.emplace();
      SkinnedMesh& mesh = *result;
      const std::vector<int>& joints = model.skins[static_cast<size_t>(skin)].joints;
      const size_t base = mesh.positions.size();
      if (base + data.value().positions.size() > 0xffffffffu) return Error{"the skinned meshes have too many vertices"};
      for (size_t v = 0; v < data.value().positions.size(); ++v) {
        std::array<uint16_t, 4> bones{};
        for (size_t k = 0; k < 4; ++k) {
          const uint32_t joint = data.value().joints[v][k];
          if (data.value().weights[v][k] > 0.f && joint >= joints.size()) {
            return Error{where + ": vertex " + std::to_string(v) + " uses joint " + std::to_string(joint) +
                         " but the skin has " + std::to_string(joints.size()) + " joints"};
          }
          const int bone = joint < joints.size() ? bone_of_node[static_cast<size_t>(joints[joint])] : 0;
          bones[k] = static_cast<uint16_t>(data.value().weights[v][k] > 0.f ? bone : 0);
        }
        mesh.joints.push_back(bones);
        mesh.weights.push_back(data.value().weights[v]);
        mesh.positions.push_back(data.value().positions[v]);
        mesh.normals.push_back(data.value().normals[v]);
        mesh.colors.push_back(data.value().color);
      }
      for (uint32_t index : data.value().indices) mesh.indices.push_back(static_cast<uint32_t>(base) + index);
    }
  }
  if (skipped_primitives > 0) {
    warnings.push_back(std::to_string(skipped_primitives) + " mesh primitives are not triangle lists and were skipped");
  }
  return result;
}

// ---------------------------------------------------------------------------
// Animation

enum class Path { kTranslation, kRotation, kScale };
enum class Interpolation { kStep, kLinear, kCubicSpline };

// One channel's keys, checked and ready to sample.
struct Channel {
  int bone = -1;
  Path path = Path::kTranslation;
  Interpolation interpolation = Interpolation::kLinear;
  std::vector<float> times;   // non-decreasing, seconds
  std::vector<float> values;  // components per key (x3 for CUBICSPLINE: in-tangent, value, out-tangent)
  int components = 3;
};

Result<int> choose_animation(const tinygltf::Model& model, const ImportSettings& settings) {
  if (model.animations.empty()) return Error{"the file has no animations to import"};
  if (!settings.animation_name.empty()) {
    std::string names;
    for (size_t i = 0; i < model.animations.size(); ++i) {
      if (model.animations[i].name == settings.animation_name) return static_cast<int>(i);
      names += (i ? ", '" : "'") + model.animations[i].name + "'";
    }
    return Error{"no animation is named '" + settings.animation_name + "' (the file has " + names + ")"};
  }
  if (static_cast<size_t>(settings.animation_index) >= model.animations.size()) {
    return Error{"animation index " + std::to_string(settings.animation_index) + " is out of range (the file has " +
                 std::to_string(model.animations.size()) + " animations, 0 to " +
                 std::to_string(model.animations.size() - 1) + ")"};
  }
  return settings.animation_index;
}

Result<std::vector<Channel>> read_channels(const tinygltf::Model& model, int animation_index,
                                           const std::vector<int>& bone_of_node, std::vector<std::string>& warnings) {
  const tinygltf::Animation& animation = model.animations[static_cast<size_t>(animation_index)];
  const std::string anim_name = "animation " + std::to_string(animation_index);
  std::vector<Channel> channels;
  size_t off_skeleton = 0;
  size_t morph_weights = 0;
  std::map<std::pair<int, int>, size_t> seen;  // (bone, path) -> channel index
  for (size_t c = 0; c < animation.channels.size(); ++c) {
    const tinygltf::AnimationChannel& source = animation.channels[c];
    const std::string where = anim_name + " channel " + std::to_string(c);
    if (source.target_node < 0 || static_cast<size_t>(source.target_node) >= model.nodes.size()) {
      return Error{where + " targets node " + std::to_string(source.target_node) + ", which does not exist"};
    }
    if (source.sampler < 0 || static_cast<size_t>(source.sampler) >= animation.samplers.size()) {
      return Error{where + " uses sampler " + std::to_string(source.sampler) + ", which does not exist (" +
                   std::to_string(animation.samplers.size()) + " samplers)"};
    }
    Channel channel;
    if (source.target_path == "translation") {
      channel.path = Path::kTranslation;
    } else if (source.target_path == "rotation") {
      channel.path = Path::kRotation;
      channel.components = 4;
    } else if (source.target_path == "scale") {
      channel.path = Path::kScale;
    } else if (source.target_path == "weights") {
      ++morph_weights;
      continue;
    } else {
      return Error{where + " has target path '" + source.target_path + "'"};
    }
    const tinygltf::AnimationSampler& sampler = animation.samplers[static_cast<size_t>(source.sampler)];
    if (sampler.interpolation == "LINEAR" || sampler.interpolation.empty()) {
      channel.interpolation = Interpolation::kLinear;
    } else if (sampler.interpolation == "STEP") {
      channel.interpolation = Interpolation::kStep;
    } else if (sampler.interpolation == "CUBICSPLINE") {
      channel.interpolation = Interpolation::kCubicSpline;
    } else {
      return Error{where + " has interpolation '" + sampler.interpolation + "' (expected LINEAR, STEP or CUBICSPLINE)"};
    }

    Result<std::vector<float>> times =
        gltf::read_floats(model, sampler.input, {TINYGLTF_TYPE_SCALAR, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " input");
    if (!times) return Error{times.error()};
    channel.times = std::move(times.value());
    if (channel.times.empty()) return Error{where + " has no keys"};
    for (size_t k = 0; k < channel.times.size(); ++k) {
      if (channel.times[k] < 0.f) return Error{where + " key " + std::to_string(k) + " has a negative time"};
      if (k > 0 && channel.times[k] < channel.times[k - 1]) {
        return Error{where + " key times are not increasing (key " + std::to_string(k) + " at " +
                     std::to_string(channel.times[k]) + " s comes after " + std::to_string(channel.times[k - 1]) + " s)"};
      }
    }

    AccessorRequest request{channel.components == 4 ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3,
                            {TINYGLTF_COMPONENT_TYPE_FLOAT},
                            false};
    if (channel.path == Path::kRotation) {
      // KHR_animation_pointer-free quantised rotations are allowed by the core spec.
      request.component_types = {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE,
                                 TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_SHORT,
                                 TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT};
      request.allow_normalized_integers = true;
    }
    Result<std::vector<float>> values = gltf::read_floats(model, sampler.output, request, where + " output");
    if (!values) return Error{values.error()};
    channel.values = std::move(values.value());
    const size_t per_key = static_cast<size_t>(channel.components) *
                           (channel.interpolation == Interpolation::kCubicSpline ? 3 : 1);
    if (channel.values.size() != channel.times.size() * per_key) {
      return Error{where + " has " + std::to_string(channel.values.size() / static_cast<size_t>(channel.components)) +
                   " output values for " + std::to_string(channel.times.size()) + " keys" +
                   (channel.interpolation == Interpolation::kCubicSpline ? " (CUBICSPLINE needs 3 per key)" : "")};
    }

    channel.bone = bone_of_node[static_cast<size_t>(source.target_node)];
    if (channel.bone < 0) {
      ++off_skeleton;
      continue;
    }
    const auto key = std::make_pair(channel.bone, static_cast<int>(channel.path));
    if (auto it = seen.find(key); it != seen.end()) {
      warnings.push_back(where + " animates the same property as channel " + std::to_string(it->second) +
                         "; the later one is used");
    }
    seen[key] = c;
    channels.push_back(std::move(channel));
  }
  if (off_skeleton > 0) {
    warnings.push_back(std::to_string(off_skeleton) + " channels animate nodes outside the skeleton and were ignored");
  }
  if (morph_weights > 0) {
    warnings.push_back(std::to_string(morph_weights) + " morph-target weight channels were ignored");
  }
  // Sampling applies channels in order, so a later channel for the same
  // property overwrites an earlier one, as the warning says.
  return channels;
}

// The keys' own rate when every key time of every channel lies on one
// uniform grid starting at `start_s`; otherwise 0.
double uniform_key_rate(const std::vector<Channel>& channels, double start_s, double end_s) {
  double smallest_gap = 0.0;
  for (const Channel& channel : channels) {
    for (size_t k = 1; k < channel.times.size(); ++k) {
      const double gap = static_cast<double>(channel.times[k]) - channel.times[k - 1];
      if (gap > 1e-6 && (smallest_gap == 0.0 || gap < smallest_gap)) smallest_gap = gap;
    }
  }
  const double span = end_s - start_s;
  if (smallest_gap == 0.0 || span <= 0.0) return 0.0;
  // The span is a whole number of steps; it pins the step more precisely
  // than a single float difference does.
  const double step = span / std::round(span / smallest_gap);
  for (const Channel& channel : channels) {
    for (float t : channel.times) {
      const double on_grid = (t - start_s) / step;
      if (std::fabs(on_grid - std::round(on_grid)) > 1e-3) return 0.0;
    }
  }
  double rate = 1.0 / step;
  // Float key times put 24 Hz at 23.99999; report the rate people expect.
  if (std::fabs(rate - std::round(rate)) < 1e-3 * rate) rate = std::round(rate);
  return rate;
}

// The resampling rate: the setting, else the keys' own rate where uniform,
// else 30 Hz. Between its keys a LINEAR channel is exactly what resampling
// at the key rate and interpolating gives back; a STEP jump or a CUBICSPLINE
// bulge is not, so those get a whole multiple of the key rate of at least
// 30 Hz (keys still land on frames).
double resampling_rate(const std::vector<Channel>& channels, double start_s, double end_s,
                       const ImportSettings& settings) {
  if (settings.sample_rate_hz > 0.f) return settings.sample_rate_hz;
  const double key_rate = uniform_key_rate(channels, start_s, end_s);
  if (key_rate <= 0.0) return kFallbackRateHz;
  const bool all_linear = std::all_of(channels.begin(), channels.end(), [](const Channel& c) {
    return c.interpolation == Interpolation::kLinear;
  });
  if (all_linear || key_rate >= kFallbackRateHz) return key_rate;
  return key_rate * std::ceil(kFallbackRateHz / key_rate - 1e-9);
}

// Value of `channel` at time t (seconds) as the glTF specification defines
// it: held before the first key and after the last.
std::array<double, 4> sample_channel(const Channel& channel, double t) {
  const size_t comps = static_cast<size_t>(channel.components);
  const bool cubic = channel.interpolation == Interpolation::kCubicSpline;
  const size_t stride = cubic ? comps * 3 : comps;
  const size_t value_offset = cubic ? comps : 0;  // skip the in-tangent
  auto value = [&](size_t key, size_t c) { return static_cast<double>(channel.values[key * stride + value_offset + c]); };
  std::array<double, 4> out{0, 0, 0, 0};

  const size_t n = channel.times.size();
  // First key with time > t; the segment is [next - 1, next].
  const size_t next = static_cast<size_t>(std::upper_bound(channel.times.begin(), channel.times.end(), t,
                                                           [](double a, float b) { return a < b; }) -
                                          channel.times.begin());
  if (next == 0 || next == n) {
    const size_t key = next == 0 ? 0 : n - 1;
    for (size_t c = 0; c < comps; ++c) out[c] = value(key, c);
    return out;
  }
  const size_t k = next - 1;
  const double t0 = channel.times[k];
  const double t1 = channel.times[next];
  const double dt = t1 - t0;
  const double s = dt > 0.0 ? (t - t0) / dt : 0.0;

  if (channel.interpolation == Interpolation::kStep) {
    for (size_t c = 0; c < comps; ++c) out[c] = value(k, c);
  } else if (channel.interpolation == Interpolation::kLinear) {
    if (channel.path == Path::kRotation) {
      // Spherical linear interpolation along the shorter arc.
      double d = 0.0;
      for (size_t c = 0; c < 4; ++c) d += value(k, c) * value(next, c);
      const double sign = d < 0.0 ? -1.0 : 1.0;
      d = std::fabs(d);
      double w0 = 1.0 - s;
      double w1 = s;
      if (d < 0.9995) {
        const double theta = std::acos(std::min(d, 1.0));
        const double sin_theta = std::sin(theta);
        w0 = std::sin((1.0 - s) * theta) / sin_theta;
        w1 = std::sin(s * theta) / sin_theta;
      }
      for (size_t c = 0; c < 4; ++c) out[c] = w0 * value(k, c) + w1 * sign * value(next, c);
    } else {
      for (size_t c = 0; c < comps; ++c) out[c] = (1.0 - s) * value(k, c) + s * value(next, c);
    }
  } else {
    const double s2 = s * s;
    const double s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t c = 0; c < comps; ++c) {
      const double out_tangent = channel.values[k * stride + 2 * comps + c];
      const double in_tangent = channel.values[next * stride + c];
      out[c] = h00 * value(k, c) + h10 * dt * out_tangent + h01 * value(next, c) + h11 * dt * in_tangent;
    }
  }
  return out;
}

Result<RawClip> sample_clip(const tinygltf::Model& model, int animation_index, const Skeleton& skeleton,
                            const std::vector<Channel>& channels, const ImportSettings& settings,
                            double& start_s, std::vector<std::string>& warnings) {
  RawClip clip;
  const std::string& name = model.animations[static_cast<size_t>(animation_index)].name;
  clip.name = name.empty() ? "animation_" + std::to_string(animation_index) : name;

  // The clip runs from the first key to the last: a source that starts at
  // 1/24 s (a Blender frame 1) has no held pose before it.
  double start = channels.empty() ? 0.0 : channels.front().times.front();
  double end = start;
  for (const Channel& channel : channels) {
    start = std::min(start, static_cast<double>(channel.times.front()));
    end = std::max(end, static_cast<double>(channel.times.back()));
  }
  const double duration = end - start;
  const double rate = resampling_rate(channels, start, end, settings);
  clip.sample_rate_hz = static_cast<float>(rate);
  start_s = start;

  // The last frame is the first at or after the last key, so no key is cut
  // off; the slack absorbs float key times (82.00008 frames is 82).
  const double frames = std::ceil(duration * rate - 0.01) + 1.0;
  if (frames > kMaxFrameCount) {
    return Error{"'" + clip.name + "' lasts " + std::to_string(duration) + " s, which at " + std::to_string(rate) +
                 " Hz is " + std::to_string(static_cast<uint64_t>(frames)) +
                 " frames; at most 65535 are supported (choose a lower sample rate)"};
  }
  clip.frame_count = static_cast<uint32_t>(frames);
  if (clip.frame_count < kMinFrameCount) {
    warnings.push_back("'" + clip.name + "' is a single pose; it is imported as two identical frames");
    clip.frame_count = kMinFrameCount;
  }
  if (static_cast<uint64_t>(clip.frame_count) * skeleton.bone_count() > kMaxBoneFrames) {
    return Error{"'" + clip.name + "' has " + std::to_string(skeleton.bone_count()) + " bones x " +
                 std::to_string(clip.frame_count) + " frames, more than can be held in memory"};
  }

  clip.bones.resize(skeleton.bone_count());
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    const Transform& rest = skeleton.rest_pose[b];
    clip.bones[b].translations.assign(clip.frame_count, rest.translation);
    clip.bones[b].rotations.assign(clip.frame_count, rest.rotation);
    clip.bones[b].scales.assign(clip.frame_count, rest.scale);
  }
  for (const Channel& channel : channels) {
    BoneTracks& tracks = clip.bones[static_cast<size_t>(channel.bone)];
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      const std::array<double, 4> v = sample_channel(channel, start + f / rate);
      const Vec3 v3{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
      switch (channel.path) {
        case Path::kTranslation: tracks.translations[f] = v3; break;
        case Path::kScale: tracks.scales[f] = v3; break;
        case Path::kRotation: {
          const Quat q{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]),
                       static_cast<float>(v[3])};
          if (!(length(q) > 1e-6f)) {
            return Error{"'" + clip.name + "' bone '" + skeleton.bone_names[static_cast<size_t>(channel.bone)] +
                         "' has a zero rotation at frame " + std::to_string(f)};
          }
          tracks.rotations[f] = q;
          break;
        }
      }
    }
  }
  for (BoneTracks& tracks : clip.bones) make_rotations_continuous(tracks.rotations);
  return clip;
}

Result<ImportedClip> import_model(const tinygltf::Model& model, const ImportSettings& settings,
                                  std::vector<std::string>& warnings) {
  ImportedClip imported;
  Result<std::vector<int>> parents = node_parents(model);
  if (!parents) return Error{parents.error()};
  Result<int> skin = choose_skin(model, warnings);
  if (!skin) return Error{skin.error()};
  Result<std::vector<int>> bones = bone_nodes(model, parents.value(), skin.value());
  if (!bones) return Error{bones.error()};
  std::vector<int> bone_of_node;
  Result<Skeleton> skeleton = build_skeleton(model, parents.value(), bones.value(), skin.value(), bone_of_node);
  if (!skeleton) return Error{skeleton.error()};
  Result<std::optional<SkinnedMesh>> mesh = read_meshes(model, skin.value(), bone_of_node, warnings);
  if (!mesh) return Error{mesh.error()};

  Result<int> animation = choose_animation(model, settings);
  if (!animation) return Error{animation.error()};
  Result<std::vector<Channel>> channels = read_channels(model, animation.value(), bone_of_node, warnings);
  if (!channels) return Error{channels.error()};
  Result<RawClip> clip = sample_clip(model, animation.value(), skeleton.value(), channels.value(), settings,
                                     imported.source_start_s, warnings);
  if (!clip) return Error{clip.error()};

  imported.skeleton = std::move(skeleton.value());
  imported.clip = std::move(clip.value());
  imported.mesh = std::move(mesh.value());
  imported.animation_index = animation.value();
  for (size_t i = 0; i < model.animations.size(); ++i) {
    imported.animation_names.push_back(model.animations[i].name.empty() ? "animation_" + std::to_string(i)
                                                                        : model.animations[i].name);
  }
  if (Status s = imported.skeleton.validate(); !s) return Error{s.error()};
  if (Status s = imported.clip.validate(imported.skeleton); !s) return Error{s.error()};
  if (imported.mesh) {
    if (Status s = imported.mesh->validate(imported.skeleton.bone_count()); !s) return Error{s.error()};
  }
  return imported;
}

}  // namespace

Result<ImportedClip> import_gltf(const std::filesystem::path& path, const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{path.string() + ": " + s.error()};
  Result<tinygltf::Model> model = load_model(path);
  if (!model) return Error{path.string() + ": " + model.error()};
  std::vector<std::string> warnings;
  Result<ImportedClip> imported = import_model(model.value(), settings, warnings);
  if (!imported) return Error{path.string() + ": " + imported.error()};
  imported.value().source = path;
  imported.value().warnings = std::move(warnings);
  return imported;
}

}  // namespace ks
