#include "keystream/io/gltf_export.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <system_error>

#include "keystream/clip/excerpt.h"
#include "keystream/clip/skinned_mesh.h"
#include "keystream/io/file_io.h"
#include "keystream/io/gltf_document.h"
#include "keystream/io/gltf_export_animation.h"
#include "keystream/io/gltf_hierarchy.h"
#include "keystream/io/gltf_schema.h"
#include "keystream/io/import.h"

namespace ks {

namespace {

// A .glb stores its total length in 32 bits; leave room for the JSON chunk.
constexpr size_t kMaxBinaryBytes = size_t{0xF0000000};

using gltf::append_view;

void set_trs(tinygltf::Node& node, const Transform& t) {
  node.matrix.clear();
  node.translation = {t.translation.x, t.translation.y, t.translation.z};
  node.rotation = {t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w};
  node.scale = {t.scale.x, t.scale.y, t.scale.z};
}

// ---------------------------------------------------------------------------
// Without a source: node i is bone i.

tinygltf::Model skeleton_model(const Skeleton& skeleton, std::vector<int>& node_of_bone) {
  tinygltf::Model model;
  model.buffers.resize(1);
  model.scenes.resize(1);
  model.defaultScene = 0;
  model.nodes.resize(skeleton.bone_count());
  node_of_bone.resize(skeleton.bone_count());
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    tinygltf::Node& node = model.nodes[b];
    node.name = skeleton.bone_names[b];
    set_trs(node, skeleton.rest_pose[b]);
    // Children in bone order, so the importer's depth-first walk meets the
    // bones of a depth-first skeleton in their order.
    const int32_t parent = skeleton.parents[b];
    (parent < 0 ? model.scenes[0].nodes : model.nodes[static_cast<size_t>(parent)].children)
        .push_back(static_cast<int>(b));
    node_of_bone[b] = static_cast<int>(b);
  }
  return model;
}

// ---------------------------------------------------------------------------
// With a source: load it, match the bones, repack its data.

// The MIME type of encoded image bytes, from their signature; "" if unknown.
std::string image_mime_type(const std::vector<unsigned char>& bytes) {
  auto starts_with = [&](size_t offset, std::string_view magic) {
    return bytes.size() >= offset + magic.size() && std::memcmp(bytes.data() + offset, magic.data(), magic.size()) == 0;
  };
  if (starts_with(0, "\x89PNG")) return "image/png";
  if (starts_with(0, "\xFF\xD8\xFF")) return "image/jpeg";
  if (starts_with(0, "\xABKTX 20\xBB")) return "image/ktx2";
  if (starts_with(0, "RIFF") && starts_with(8, "WEBP")) return "image/webp";
  return {};
}

// Errors name the file.
Result<tinygltf::Model> load_source(const std::filesystem::path& path, bool allow_outside_uris) {
  const std::string where = path.string() + ": ";
  const std::string ext = lowercase_extension(path);
  if (ext == ".bvh") {
    return Error{where +
                 "a BVH file cannot be the source of a glTF export (it has no mesh to keep); export BVH "
                 "clips without a source"};
  }
  if (ext != ".gltf" && ext != ".glb")
    return Error{where + "the source must be a .gltf, .glb, .fbx, .dae or .zae file, not '" + excerpt(ext) + "'"};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{where + "no such file"};  // read_file names other cases
  Result<std::string> bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};  // names the path already
  // The importer's own load: it refuses the same files, so bone names agree.
  Result<tinygltf::Model> model = gltf::load_document(path, bytes.value(), {true, allow_outside_uris});
  if (!model) return Error{where + model.error()};
  return model;
}

// Node of every bone, by the names the importer gives the source's bones;
// parents must agree so that each local transform means the same thing.
Result<std::vector<int>> match_bones(const tinygltf::Model& model, const Skeleton& skeleton) {
  std::vector<std::string> warnings;  // about skins that disagree: the importer says it
  Result<gltf::ModelSkeleton> file = gltf::read_skeleton(model, warnings);
  if (!file) return Error{file.error()};
  const std::vector<int>& parents = file.value().parents;

  std::vector<int> node_of_bone(skeleton.bone_count());
  std::vector<int> matched_bone(model.nodes.size(), -1);
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    const int32_t file_bone = file.value().skeleton.find_bone(skeleton.bone_names[b]);
    if (file_bone < 0) return Error{"the file has no bone '" + excerpt(skeleton.bone_names[b]) + "'"};
    node_of_bone[b] = file.value().bones[static_cast<size_t>(file_bone)];
    matched_bone[static_cast<size_t>(node_of_bone[b])] = static_cast<int>(b);
  }
  auto name = [&](int bone) {
    return bone < 0 ? std::string("none") : "'" + excerpt(skeleton.bone_names[static_cast<size_t>(bone)]) + "'";
  };
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    int ancestor = parents[static_cast<size_t>(node_of_bone[b])];
    while (ancestor >= 0 && matched_bone[static_cast<size_t>(ancestor)] < 0) {
      ancestor = parents[static_cast<size_t>(ancestor)];
    }
    const int file_parent = ancestor < 0 ? -1 : matched_bone[static_cast<size_t>(ancestor)];
    if (file_parent != skeleton.parents[b]) {
      return Error{"bone '" + excerpt(skeleton.bone_names[b]) + "' has parent " + name(skeleton.parents[b]) +
                   " in the skeleton but " + name(file_parent) + " in the file"};
    }
  }
  return node_of_bone;
}

// Moves every buffer view still in use into one new buffer 0 and every
// image read from a file or data URI into a buffer view of its own, so the
// .glb is self-contained. Once the animations are gone their data is unused;
// it is dropped unless extensions, which may refer to any index, are in use.
Status pack_buffers(tinygltf::Model& model) {
  const bool prune = model.extensionsUsed.empty() && model.extensionsRequired.empty();
  std::vector<int> new_accessor(model.accessors.size(), prune ? -1 : 0);
  std::vector<int> new_view(model.bufferViews.size(), prune ? -1 : 0);
  std::string bad;  // the first reference to something that does not exist
  auto use = [&bad](std::vector<int>& used, int index, const char* what) {
    if (index < 0) return;
    if (static_cast<size_t>(index) < used.size()) {
      used[static_cast<size_t>(index)] = 0;
    } else if (bad.empty()) {
      bad = std::string("a reference to ") + what + " " + std::to_string(index) + ", which does not exist";
    }
  };
  for (const tinygltf::Mesh& mesh : model.meshes) {
    for (const tinygltf::Primitive& primitive : mesh.primitives) {
      for (const auto& [semantic, accessor] : primitive.attributes) use(new_accessor, accessor, "accessor");
      use(new_accessor, primitive.indices, "accessor");
      for (const auto& target : primitive.targets) {
        for (const auto& [semantic, accessor] : target) use(new_accessor, accessor, "accessor");
      }
    }
  }
  for (const tinygltf::Skin& skin : model.skins) use(new_accessor, skin.inverseBindMatrices, "accessor");
  for (size_t a = 0; a < model.accessors.size(); ++a) {
    if (new_accessor[a] < 0) continue;
    const tinygltf::Accessor& accessor = model.accessors[a];
    use(new_view, accessor.bufferView, "buffer view");
    if (accessor.sparse.isSparse) {
      use(new_view, accessor.sparse.indices.bufferView, "buffer view");
      use(new_view, accessor.sparse.values.bufferView, "buffer view");
    }
  }
  for (const tinygltf::Image& image : model.images) use(new_view, image.bufferView, "buffer view");
  if (!bad.empty()) return Error{bad};

  // Copy the views in use, in order, into the new buffer.
  std::vector<tinygltf::Buffer> old_buffers = std::move(model.buffers);
  std::vector<tinygltf::BufferView> old_views = std::move(model.bufferViews);
  model.buffers.assign(1, tinygltf::Buffer{});
  model.bufferViews.clear();
  for (size_t v = 0; v < old_views.size(); ++v) {
    if (new_view[v] < 0) continue;
    const tinygltf::BufferView& view = old_views[v];
    if (view.buffer < 0 || static_cast<size_t>(view.buffer) >= old_buffers.size() ||
        view.byteOffset > old_buffers[static_cast<size_t>(view.buffer)].data.size() ||
        view.byteLength > old_buffers[static_cast<size_t>(view.buffer)].data.size() - view.byteOffset) {
      return Error{"buffer view " + std::to_string(v) + " lies outside its buffer"};
    }
    new_view[v] = append_view(model, old_buffers[static_cast<size_t>(view.buffer)].data.data() + view.byteOffset,
                              view.byteLength);
    tinygltf::BufferView& copy = model.bufferViews.back();
    const size_t offset = copy.byteOffset;
    copy = view;  // keeps stride, target, name, extensions
    copy.buffer = 0;
    copy.byteOffset = offset;
  }
  auto remap = [](const std::vector<int>& table, int& index) {
    if (index >= 0) index = table[static_cast<size_t>(index)];
  };

  std::vector<tinygltf::Accessor> old_accessors = std::move(model.accessors);
  model.accessors.clear();
  for (size_t a = 0; a < old_accessors.size(); ++a) {
    if (new_accessor[a] < 0) continue;
    new_accessor[a] = static_cast<int>(model.accessors.size());
    model.accessors.push_back(std::move(old_accessors[a]));
    tinygltf::Accessor& accessor = model.accessors.back();
    remap(new_view, accessor.bufferView);
    if (accessor.sparse.isSparse) {
      remap(new_view, accessor.sparse.indices.bufferView);
      remap(new_view, accessor.sparse.values.bufferView);
    }
  }
  for (tinygltf::Mesh& mesh : model.meshes) {
    for (tinygltf::Primitive& primitive : mesh.primitives) {
      for (auto& [semantic, accessor] : primitive.attributes) remap(new_accessor, accessor);
      remap(new_accessor, primitive.indices);
      for (auto& target : primitive.targets) {
        for (auto& [semantic, accessor] : target) remap(new_accessor, accessor);
      }
    }
  }
  for (tinygltf::Skin& skin : model.skins) remap(new_accessor, skin.inverseBindMatrices);

  for (size_t i = 0; i < model.images.size(); ++i) {
    tinygltf::Image& image = model.images[i];
    remap(new_view, image.bufferView);
    if (image.image.empty()) continue;  // in a buffer view already, or a file that could not be read
    std::string mime_type = image_mime_type(image.image);
    if (mime_type.empty()) mime_type = image.mimeType;  // from a data URI
    if (mime_type.empty()) return Error{"image " + std::to_string(i) + " is not PNG, JPEG, KTX2 or WebP"};
    image.bufferView = append_view(model, image.image.data(), image.image.size());
    image.mimeType = mime_type;
    image.uri.clear();
    image.image.clear();
  }
  return {};
}

// Errors name the file.
Result<tinygltf::Model> source_model(const std::filesystem::path& path, bool allow_outside_uris,
                                     const Skeleton& skeleton, std::vector<int>& node_of_bone) {
  Result<tinygltf::Model> model = load_source(path, allow_outside_uris);
  if (!model) return model;
  Result<std::vector<int>> matched = match_bones(model.value(), skeleton);
  if (!matched) return Error{path.string() + ": " + matched.error()};
  node_of_bone = std::move(matched.value());
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    tinygltf::Node& node = model.value().nodes[static_cast<size_t>(node_of_bone[b])];
    // glTF animates only T/R/S: a matrix becomes the skeleton's rest pose,
    // which the importer decomposed from it.
    if (!node.matrix.empty()) set_trs(node, skeleton.rest_pose[b]);
  }
  model.value().animations.clear();
  if (Status s = pack_buffers(model.value()); !s) return Error{path.string() + ": " + s.error()};
  return model;
}

// ---------------------------------------------------------------------------
// With an FBX or Collada source: the skeleton's nodes, and the source's mesh
// as the importer keeps it (every mesh in one, skinned), bound to them.

template <typename T>
int append_accessor(tinygltf::Model& model, const std::vector<T>& values, int type, int component_type, size_t count) {
  tinygltf::Accessor accessor;
  accessor.bufferView = append_view(model, values.data(), values.size() * sizeof(T));
  accessor.componentType = component_type;
  accessor.type = type;
  accessor.count = count;
  model.accessors.push_back(accessor);
  return static_cast<int>(model.accessors.size() - 1);
}

// Adds `mesh` (joints are bones of `file`) as a node skinned by the bones of
// `skeleton` (node i is bone i), each with `file`'s inverse bind matrix for
// the bone of its name. Errors name a bone the mesh needs that the skeleton
// lacks.
Status append_skinned_mesh(tinygltf::Model& model, const SkinnedMesh& mesh, const Skeleton& file,
                           const Skeleton& skeleton) {
  std::vector<int> bone_of_file_bone(file.bone_count(), -1);
  for (size_t f = 0; f < file.bone_count(); ++f) bone_of_file_bone[f] = skeleton.find_bone(file.bone_names[f]);
  std::vector<uint16_t> joints;
  joints.reserve(mesh.joints.size() * 4);
  for (size_t v = 0; v < mesh.vertex_count(); ++v) {
    for (size_t k = 0; k < 4; ++k) {
      const int bone = bone_of_file_bone[mesh.joints[v][k]];
      if (bone < 0 && mesh.weights[v][k] > 0.f) {
        return Error{"the stream has no bone '" + excerpt(file.bone_names[mesh.joints[v][k]]) +
                     "', which the source's mesh is bound to"};
      }
      joints.push_back(static_cast<uint16_t>(std::max(bone, 0)));
    }
  }
  std::vector<float> inverse_binds(skeleton.bone_count() * 16);
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    const int32_t f = file.find_bone(skeleton.bone_names[b]);
    const Mat4 m = f >= 0 && !file.inverse_bind.empty() ? file.inverse_bind[static_cast<size_t>(f)] : Mat4{};
    std::copy(m.m, m.m + 16, inverse_binds.begin() + static_cast<std::ptrdiff_t>(b * 16));
  }
  std::vector<float> positions, normals, colors, weights;
  Vec3 low{INFINITY, INFINITY, INFINITY}, high{-INFINITY, -INFINITY, -INFINITY};
  for (size_t v = 0; v < mesh.vertex_count(); ++v) {
    const Vec3 p = mesh.positions[v];
    positions.insert(positions.end(), {p.x, p.y, p.z});
    low = {std::min(low.x, p.x), std::min(low.y, p.y), std::min(low.z, p.z)};
    high = {std::max(high.x, p.x), std::max(high.y, p.y), std::max(high.z, p.z)};
    normals.insert(normals.end(), {mesh.normals[v].x, mesh.normals[v].y, mesh.normals[v].z});
    colors.insert(colors.end(), {mesh.colors[v].x, mesh.colors[v].y, mesh.colors[v].z});
    weights.insert(weights.end(), mesh.weights[v].begin(), mesh.weights[v].end());
  }
  const size_t n = mesh.vertex_count();
  tinygltf::Primitive primitive;
  primitive.mode = TINYGLTF_MODE_TRIANGLES;
  primitive.attributes["POSITION"] =
      append_accessor(model, positions, TINYGLTF_TYPE_VEC3, TINYGLTF_COMPONENT_TYPE_FLOAT, n);
  model.accessors.back().minValues = {low.x, low.y, low.z};  // glTF requires POSITION's bounds
  model.accessors.back().maxValues = {high.x, high.y, high.z};
  primitive.attributes["NORMAL"] =
      append_accessor(model, normals, TINYGLTF_TYPE_VEC3, TINYGLTF_COMPONENT_TYPE_FLOAT, n);
  primitive.attributes["COLOR_0"] =
      append_accessor(model, colors, TINYGLTF_TYPE_VEC3, TINYGLTF_COMPONENT_TYPE_FLOAT, n);
  primitive.attributes["JOINTS_0"] =
      append_accessor(model, joints, TINYGLTF_TYPE_VEC4, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, n);
  primitive.attributes["WEIGHTS_0"] =
      append_accessor(model, weights, TINYGLTF_TYPE_VEC4, TINYGLTF_COMPONENT_TYPE_FLOAT, n);
  primitive.indices = append_accessor(model, mesh.indices, TINYGLTF_TYPE_SCALAR, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                                      mesh.indices.size());
  tinygltf::Mesh gltf_mesh;
  gltf_mesh.name = "mesh";
  gltf_mesh.primitives.push_back(std::move(primitive));
  model.meshes.push_back(std::move(gltf_mesh));

  tinygltf::Skin skin;
  for (size_t b = 0; b < skeleton.bone_count(); ++b) skin.joints.push_back(static_cast<int>(b));
  skin.inverseBindMatrices =
      append_accessor(model, inverse_binds, TINYGLTF_TYPE_MAT4, TINYGLTF_COMPONENT_TYPE_FLOAT, skeleton.bone_count());
  model.skins.push_back(std::move(skin));

  tinygltf::Node node;
  node.name = "mesh";
  node.mesh = static_cast<int>(model.meshes.size() - 1);
  node.skin = static_cast<int>(model.skins.size() - 1);
  model.nodes.push_back(std::move(node));
  model.scenes[0].nodes.push_back(static_cast<int>(model.nodes.size() - 1));
  return {};
}

// Errors name the file.
Result<tinygltf::Model> assimp_source_model(const std::filesystem::path& path, const Skeleton& skeleton,
                                            std::vector<int>& node_of_bone) {
  // The importer's own reading, so that bone names and binds agree.
  Result<ImportedClip> source = import_clip(path);
  if (!source) return Error{source.error()};  // names the path already
  tinygltf::Model model = skeleton_model(skeleton, node_of_bone);
  if (!source.value().mesh) return model;
  if (Status s = append_skinned_mesh(model, *source.value().mesh, source.value().skeleton, skeleton); !s) {
    return Error{path.string() + ": " + s.error()};
  }
  return model;
}

}  // namespace

Result<std::vector<uint8_t>> export_gltf(const Skeleton& skeleton, const RawClip& clip,
                                         const std::optional<std::filesystem::path>& source, bool allow_outside_uris,
                                         std::vector<std::string>* warnings) {
  if (Status s = skeleton.validate(); !s) return Error{"cannot export an invalid skeleton: " + s.error()};
  if (Status s = clip.validate(skeleton); !s) return Error{"cannot export an invalid clip: " + s.error()};

  std::vector<int> node_of_bone;
  tinygltf::Model model;
  std::string document;  // what the export is, for warnings about what it cannot hold
  const std::string source_ext = source ? lowercase_extension(*source) : "";
  if (source_ext == ".fbx" || source_ext == ".dae" || source_ext == ".zae") {
    Result<tinygltf::Model> loaded = assimp_source_model(*source, skeleton, node_of_bone);
    if (!loaded) return Error{loaded.error()};
    model = std::move(loaded.value());
    document = "the export onto " + excerpt(source->string(), kPathExcerptChars) +
               " (its meshes merged into one, without morph targets)";
  } else if (source) {
    Result<tinygltf::Model> loaded = source_model(*source, allow_outside_uris, skeleton, node_of_bone);
    if (!loaded) return Error{loaded.error()};
    model = std::move(loaded.value());
    document = "the source " + excerpt(source->string(), kPathExcerptChars);
  } else {
    model = skeleton_model(skeleton, node_of_bone);
    document = "the export without a source (bones only, no mesh)";
  }
  std::vector<std::string> dropped_warnings;
  gltf::append_animation(model, clip, node_of_bone, document, warnings ? *warnings : dropped_warnings);
  model.asset.version = "2.0";
  model.asset.generator = "keystream";
  if (model.buffers[0].data.size() > kMaxBinaryBytes) {
    return Error{"the export would hold " + std::to_string(model.buffers[0].data.size()) +
                 " bytes of data; a .glb holds at most 4 GiB"};
  }

  std::ostringstream stream;
  try {
    tinygltf::TinyGLTF writer;
    writer.SetImageWriter(nullptr, nullptr);  // images are in buffer views; a missing one keeps its uri
    if (!writer.WriteGltfSceneToStream(&model, stream, false, true)) return Error{"cannot write the glTF"};
  } catch (const std::exception& e) {
    // The JSON writer throws on a name that is not UTF-8 (a BVH joint in Latin-1, say).
    return Error{std::string("cannot write the glTF JSON: ") + e.what()};
  }
  const std::string bytes = std::move(stream).str();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

std::string additive_layer_export_warning(AdditiveBase base) {
  return std::string("the stream is an additive layer (to ") + to_string(base) +
         "): the animation written is the layer itself, its difference to that base, not a pose a viewer shows on "
         "its own";
}

}  // namespace ks
