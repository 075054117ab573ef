#include "keystream/io/gltf_schema.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <string>

namespace ks::gltf {

namespace {

using nlohmann::json;

enum class Kind { kUint, kNumber, kBool, kString, kObject, kArray };

struct ObjectRule;

// One property: its kind; for objects the rule of its members; for arrays
// the kind of the elements and, for arrays of objects, their rule.
struct Property {
  const char* name;
  Kind kind;
  const ObjectRule* object = nullptr;
  Kind element = Kind::kObject;
  const ObjectRule* element_object = nullptr;
  bool map_of_uint = false;  // an object whose every member is an index (primitive attributes)
};

struct ObjectRule {
  std::initializer_list<Property> properties;
};

const char* describe(Kind kind) {
  switch (kind) {
    case Kind::kUint: return "a non-negative integer";
    case Kind::kNumber: return "a number";
    case Kind::kBool: return "true or false";
    case Kind::kString: return "a string";
    case Kind::kObject: return "an object";
    case Kind::kArray: return "an array";
  }
  return "?";
}

std::string found(const json& value) {
  if (value.is_number_integer() && value.get<int64_t>() < 0) return value.dump();
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_null()) return "null";
  return std::string("a ") + value.type_name();
}

bool has_kind(const json& value, Kind kind) {
  switch (kind) {
    case Kind::kUint: return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
    case Kind::kNumber: return value.is_number();
    case Kind::kBool: return value.is_boolean();
    case Kind::kString: return value.is_string();
    case Kind::kObject: return value.is_object();
    case Kind::kArray: return value.is_array();
  }
  return false;
}

// The schema, innermost rules first.
const ObjectRule kTextureInfo{{{"index", Kind::kUint}, {"texCoord", Kind::kUint}, {"scale", Kind::kNumber},
                               {"strength", Kind::kNumber}}};
const ObjectRule kPbr{{{"baseColorFactor", Kind::kArray, nullptr, Kind::kNumber},
                       {"baseColorTexture", Kind::kObject, &kTextureInfo},
                       {"metallicFactor", Kind::kNumber},
                       {"roughnessFactor", Kind::kNumber},
                       {"metallicRoughnessTexture", Kind::kObject, &kTextureInfo}}};
const ObjectRule kMaterial{{{"pbrMetallicRoughness", Kind::kObject, &kPbr},
                            {"normalTexture", Kind::kObject, &kTextureInfo},
                            {"occlusionTexture", Kind::kObject, &kTextureInfo},
                            {"emissiveTexture", Kind::kObject, &kTextureInfo},
                            {"emissiveFactor", Kind::kArray, nullptr, Kind::kNumber},
                            {"alphaMode", Kind::kString},
                            {"alphaCutoff", Kind::kNumber},
                            {"doubleSided", Kind::kBool}}};
const ObjectRule kAttributes{{}};
const ObjectRule kPrimitive{{{"attributes", Kind::kObject, &kAttributes, Kind::kObject, nullptr, true},
                             {"indices", Kind::kUint},
                             {"material", Kind::kUint},
                             {"mode", Kind::kUint},
                             {"targets", Kind::kArray, nullptr, Kind::kObject, &kAttributes}}};
const ObjectRule kMesh{{{"primitives", Kind::kArray, nullptr, Kind::kObject, &kPrimitive},
                        {"weights", Kind::kArray, nullptr, Kind::kNumber}}};
const ObjectRule kNode{{{"camera", Kind::kUint},
                        {"children", Kind::kArray, nullptr, Kind::kUint},
                        {"skin", Kind::kUint},
                        {"matrix", Kind::kArray, nullptr, Kind::kNumber},
                        {"mesh", Kind::kUint},
                        {"rotation", Kind::kArray, nullptr, Kind::kNumber},
                        {"scale", Kind::kArray, nullptr, Kind::kNumber},
                        {"translation", Kind::kArray, nullptr, Kind::kNumber},
                        {"weights", Kind::kArray, nullptr, Kind::kNumber}}};
const ObjectRule kScene{{{"nodes", Kind::kArray, nullptr, Kind::kUint}}};
const ObjectRule kSkin{{{"inverseBindMatrices", Kind::kUint},
                        {"skeleton", Kind::kUint},
                        {"joints", Kind::kArray, nullptr, Kind::kUint}}};
const ObjectRule kSparseIndices{{{"bufferView", Kind::kUint}, {"byteOffset", Kind::kUint}, {"componentType", Kind::kUint}}};
const ObjectRule kSparseValues{{{"bufferView", Kind::kUint}, {"byteOffset", Kind::kUint}}};
const ObjectRule kSparse{{{"count", Kind::kUint},
                          {"indices", Kind::kObject, &kSparseIndices},
                          {"values", Kind::kObject, &kSparseValues}}};
const ObjectRule kAccessor{{{"bufferView", Kind::kUint},
                            {"byteOffset", Kind::kUint},
                            {"componentType", Kind::kUint},
                            {"normalized", Kind::kBool},
                            {"count", Kind::kUint},
                            {"type", Kind::kString},
                            {"max", Kind::kArray, nullptr, Kind::kNumber},
                            {"min", Kind::kArray, nullptr, Kind::kNumber},
                            {"sparse", Kind::kObject, &kSparse}}};
const ObjectRule kBufferView{{{"buffer", Kind::kUint},
                              {"byteOffset", Kind::kUint},
                              {"byteLength", Kind::kUint},
                              {"byteStride", Kind::kUint},
                              {"target", Kind::kUint}}};
const ObjectRule kBuffer{{{"uri", Kind::kString}, {"byteLength", Kind::kUint}}};
const ObjectRule kTarget{{{"node", Kind::kUint}, {"path", Kind::kString}}};
const ObjectRule kChannel{{{"sampler", Kind::kUint}, {"target", Kind::kObject, &kTarget}}};
const ObjectRule kAnimationSampler{{{"input", Kind::kUint}, {"output", Kind::kUint}, {"interpolation", Kind::kString}}};
const ObjectRule kAnimation{{{"channels", Kind::kArray, nullptr, Kind::kObject, &kChannel},
                             {"samplers", Kind::kArray, nullptr, Kind::kObject, &kAnimationSampler}}};
const ObjectRule kTexture{{{"sampler", Kind::kUint}, {"source", Kind::kUint}}};
const ObjectRule kImage{{{"uri", Kind::kString}, {"mimeType", Kind::kString}, {"bufferView", Kind::kUint}}};
const ObjectRule kSampler{{{"magFilter", Kind::kUint}, {"minFilter", Kind::kUint}, {"wrapS", Kind::kUint},
                           {"wrapT", Kind::kUint}}};
const ObjectRule kProjection{{{"aspectRatio", Kind::kNumber}, {"yfov", Kind::kNumber}, {"xmag", Kind::kNumber},
                              {"ymag", Kind::kNumber}, {"zfar", Kind::kNumber}, {"znear", Kind::kNumber}}};
const ObjectRule kCamera{{{"type", Kind::kString},
                          {"perspective", Kind::kObject, &kProjection},
                          {"orthographic", Kind::kObject, &kProjection}}};
const ObjectRule kAsset{{{"version", Kind::kString}, {"minVersion", Kind::kString}, {"generator", Kind::kString},
                         {"copyright", Kind::kString}}};
const ObjectRule kRoot{{{"asset", Kind::kObject, &kAsset},
                        {"scene", Kind::kUint},
                        {"extensionsUsed", Kind::kArray, nullptr, Kind::kString},
                        {"extensionsRequired", Kind::kArray, nullptr, Kind::kString},
                        {"accessors", Kind::kArray, nullptr, Kind::kObject, &kAccessor},
                        {"animations", Kind::kArray, nullptr, Kind::kObject, &kAnimation},
                        {"buffers", Kind::kArray, nullptr, Kind::kObject, &kBuffer},
                        {"bufferViews", Kind::kArray, nullptr, Kind::kObject, &kBufferView},
                        {"cameras", Kind::kArray, nullptr, Kind::kObject, &kCamera},
                        {"images", Kind::kArray, nullptr, Kind::kObject, &kImage},
                        {"materials", Kind::kArray, nullptr, Kind::kObject, &kMaterial},
                        {"meshes", Kind::kArray, nullptr, Kind::kObject, &kMesh},
                        {"nodes", Kind::kArray, nullptr, Kind::kObject, &kNode},
                        {"samplers", Kind::kArray, nullptr, Kind::kObject, &kSampler},
                        {"scenes", Kind::kArray, nullptr, Kind::kObject, &kScene},
                        {"skins", Kind::kArray, nullptr, Kind::kObject, &kSkin},
                        {"textures", Kind::kArray, nullptr, Kind::kObject, &kTexture}}};

Status mismatch(const std::string& path, Kind expected, const json& value) {
  return Error{"property " + path + " must be " + describe(expected) + ", not " + found(value)};
}

Status check_object(const json& object, const ObjectRule& rule, const std::string& path);

Status check_value(const json& value, Kind kind, const ObjectRule* object, const std::string& path) {
  if (!has_kind(value, kind)) return mismatch(path, kind, value);
  if (kind == Kind::kObject && object != nullptr) return check_object(value, *object, path);
  return {};
}

// Members every glTF object may carry: a name, extensions (each an object), extras.
Status check_common(const json& object, const std::string& path) {
  if (auto it = object.find("name"); it != object.end() && !it->is_string()) {
    return mismatch(path + ".name", Kind::kString, *it);
  }
  if (auto it = object.find("extensions"); it != object.end()) {
    if (!it->is_object()) return mismatch(path + ".extensions", Kind::kObject, *it);
    for (auto ext = it->begin(); ext != it->end(); ++ext) {
      if (!ext->is_object()) return mismatch(path + ".extensions." + ext.key(), Kind::kObject, *ext);
    }
  }
  return {};
}

Status check_object(const json& object, const ObjectRule& rule, const std::string& path) {
  if (Status s = check_common(object, path); !s) return s;
  for (const Property& property : rule.properties) {
    const auto it = object.find(property.name);
    if (it == object.end()) continue;
    const std::string here = path.empty() ? property.name : path + "." + property.name;
    if (property.map_of_uint) {
      if (!it->is_object()) return mismatch(here, Kind::kObject, *it);
      for (auto member = it->begin(); member != it->end(); ++member) {
        if (!has_kind(*member, Kind::kUint)) return mismatch(here + "." + member.key(), Kind::kUint, *member);
      }
      continue;
    }
    if (Status s = check_value(*it, property.kind, property.object, here); !s) return s;
    if (property.kind != Kind::kArray) continue;
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string element = here + "[" + std::to_string(i) + "]";
      const json& value = (*it)[i];
      if (property.element_object == &kAttributes) {
        // Morph targets: objects mapping attribute names to accessor indices.
        if (!value.is_object()) return mismatch(element, Kind::kObject, value);
        for (auto member = value.begin(); member != value.end(); ++member) {
          if (!has_kind(*member, Kind::kUint)) return mismatch(element + "." + member.key(), Kind::kUint, *member);
        }
        continue;
      }
      if (Status s = check_value(value, property.element, property.element_object, element); !s) return s;
    }
  }
  return {};
}

}  // namespace

Status check_json_types(const json& document) {
  if (!document.is_object()) return Error{"the document is not a JSON object"};
  if (!document.contains("asset")) return Error{"property asset is missing (every glTF file has one)"};
  return check_object(document, kRoot, "");
}

Status check_json_nesting(std::string_view text, uint32_t max_depth) {
  uint32_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return Error{"its JSON nests deeper than " + std::to_string(max_depth) + " levels (at byte " +
                     std::to_string(i) + ")"};
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}

Status check_glb_container(std::string_view bytes) {
  const auto u32 = [&](size_t at) {
    uint32_t v = 0;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  const std::string size = std::to_string(bytes.size());
  if (bytes.size() < 12) return Error{"truncated: " + size + " bytes, shorter than the 12-byte GLB header"};
  if (bytes.substr(0, 4) != "glTF") return Error{"not a binary glTF file (its first 4 bytes are not 'glTF')"};
  if (u32(4) != 2) return Error{"GLB version " + std::to_string(u32(4)) + "; only version 2 is read"};
  const uint64_t declared = u32(8);
  if (declared > bytes.size()) {
    return Error{"truncated: the GLB header says " + std::to_string(declared) + " bytes, the file has " + size};
  }
  if (declared < bytes.size()) {
    return Error{"the GLB header says " + std::to_string(declared) + " bytes, the file has " + size +
                 " (bytes after the end)"};
  }
  // Chunks: length, type, data, back to back; JSON first, then an optional BIN.
  uint64_t at = 12;
  for (int chunk = 0; at < declared; ++chunk) {
    const char* what = chunk == 0 ? "JSON chunk" : chunk == 1 ? "BIN chunk" : "extra chunk";
    if (declared - at < 8) return Error{"truncated: the " + std::string(what) + "'s 8-byte header is cut short"};
    const uint64_t length = u32(at);
    const std::string_view type = bytes.substr(at + 4, 4);
    if (chunk == 0 && type != "JSON") return Error{"the first GLB chunk is not JSON"};
    if (chunk == 1 && type != std::string_view("BIN\0", 4)) return Error{"the second GLB chunk is not BIN"};
    if (length > declared - at - 8) {
      return Error{"truncated: the " + std::string(what) + " of " + std::to_string(length) + " bytes runs " +
                   std::to_string(length - (declared - at - 8)) + " bytes past the end of the file"};
    }
    at += 8 + length;
  }
  if (at == 12) return Error{"truncated: the GLB has no JSON chunk"};
  return {};
}

std::string_view json_text(std::string_view bytes, bool binary) {
  if (!binary) return bytes;
  // GLB: magic, version, length, then chunk 0 (length, type "JSON", data).
  if (bytes.size() < 20 || bytes.substr(0, 4) != "glTF" || bytes.substr(16, 4) != "JSON") return {};
  uint32_t chunk_length = 0;
  std::memcpy(&chunk_length, bytes.data() + 12, 4);
  if (chunk_length > bytes.size() - 20) return {};
  return bytes.substr(20, chunk_length);
}

}  // namespace ks::gltf
