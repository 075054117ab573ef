#pragma once
// Builds small glTF files for tests: a valid animated, skinned document that
// each malformed-input test breaks in one place.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ks::test {

/// Binary buffer assembled float by float, with buffer views appended as it grows.
struct BufferBuilder {
  std::vector<unsigned char> bytes;
  nlohmann::json views = nlohmann::json::array();
  nlohmann::json accessors = nlohmann::json::array();

  /// Appends `values` as a buffer view and an accessor; returns the accessor index.
  int add_floats(const std::vector<float>& values, const std::string& type, size_t components) {
    const size_t offset = bytes.size();
    bytes.resize(offset + values.size() * sizeof(float));
    std::memcpy(bytes.data() + offset, values.data(), values.size() * sizeof(float));
    return add_accessor(offset, values.size() * sizeof(float), 5126, values.size() / components, type);
  }
  int add_u16(const std::vector<uint16_t>& values, const std::string& type, size_t components) {
    const size_t offset = bytes.size();
    bytes.resize(offset + values.size() * sizeof(uint16_t));
    std::memcpy(bytes.data() + offset, values.data(), values.size() * sizeof(uint16_t));
    while (bytes.size() % 4 != 0) bytes.push_back(0);
    return add_accessor(offset, values.size() * sizeof(uint16_t), 5123, values.size() / components, type);
  }

 private:
  int add_accessor(size_t offset, size_t length, int component_type, size_t count, const std::string& type) {
    views.push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", length}});
    accessors.push_back(
        {{"bufferView", views.size() - 1}, {"componentType", component_type}, {"count", count}, {"type", type}});
    return static_cast<int>(accessors.size() - 1);
  }
};

inline std::string base64(const std::vector<unsigned char>& data) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < data.size(); i += 3) {
    const uint32_t n = (uint32_t{data[i]} << 16) | (i + 1 < data.size() ? uint32_t{data[i + 1]} << 8 : 0u) |
                       (i + 2 < data.size() ? uint32_t{data[i + 2]} : 0u);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < data.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < data.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

/// A binary glTF of `json` (padded with spaces) and `bin` (padded with zeros).
inline std::string make_glb(std::string json, std::vector<unsigned char> bin) {
  while (json.size() % 4 != 0) json += ' ';
  while (bin.size() % 4 != 0) bin.push_back(0);
  std::string out = "glTF";
  const auto put_u32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  put_u32(2);
  put_u32(static_cast<uint32_t>(12 + 8 + json.size() + (bin.empty() ? 0 : 8 + bin.size())));
  put_u32(static_cast<uint32_t>(json.size()));
  out += "JSON" + json;
  if (!bin.empty()) {
    put_u32(static_cast<uint32_t>(bin.size()));
    out += std::string("BIN\0", 4);
    out.append(reinterpret_cast<const char*>(bin.data()), bin.size());
  }
  return out;
}

/// A document under construction: JSON plus the buffer it embeds.
struct GltfDocument {
  nlohmann::json json;
  BufferBuilder buffer;

  /// The JSON with the buffer embedded as a data URI.
  std::string text() const {
    nlohmann::json j = json;
    j["bufferViews"] = buffer.views;
    j["accessors"] = buffer.accessors;
    j["buffers"] = nlohmann::json::array(
        {{{"byteLength", buffer.bytes.size()},
          {"uri", "data:application/octet-stream;base64," + base64(buffer.bytes)}}});
    return j.dump(1);
  }
  std::filesystem::path write(const std::filesystem::path& dir, const std::string& name) const {
    const std::filesystem::path path = dir / (name + ".gltf");
    std::ofstream(path, std::ios::binary) << text();
    return path;
  }
};

/// Two-bone skinned strip (a root node above the skin's joints), one
/// triangle pair weighted across the joint, and one LINEAR animation
/// ("bend") of 5 keys at 10 Hz rotating the second joint.
inline GltfDocument make_skinned_document() {
  GltfDocument doc;
  BufferBuilder& b = doc.buffer;
  const int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, "VEC3", 3);
  const int joints = b.add_u16({0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4);
  const int weights = b.add_floats({1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4);
  const int indices = b.add_u16({0, 1, 2, 2, 1, 3}, "SCALAR", 1);
  const int ibm = b.add_floats({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,  //
                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1},
                               "MAT4", 16);
  const int times = b.add_floats({0.f, 0.1f, 0.2f, 0.3f, 0.4f}, "SCALAR", 1);
  std::vector<float> rotations;
  for (int k = 0; k < 5; ++k) {
    const float half = 0.5f * 0.3f * static_cast<float>(k);  // 0.3 rad per key about Z
    rotations.insert(rotations.end(), {0.f, 0.f, std::sin(half), std::cos(half)});
  }
  const int rotation_values = b.add_floats(rotations, "VEC4", 4);

  doc.json = {
      {"asset", {{"version", "2.0"}}},
      {"scene", 0},
      {"scenes", {{{"nodes", {0, 3}}}}},
      {"nodes",
       {{{"name", "rig"}, {"children", {1}}},
        {{"name", "lower"}, {"children", {2}}},
        {{"name", "upper"}, {"translation", {0, 1, 0}}},
        {{"name", "strip"}, {"mesh", 0}, {"skin", 0}}}},
      {"meshes",
       {{{"primitives",
          {{{"attributes", {{"POSITION", positions}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}},
            {"indices", indices}}}}}}},
      {"skins", {{{"joints", {1, 2}}, {"inverseBindMatrices", ibm}}}},
      {"animations",
       {{{"name", "bend"},
         {"samplers", {{{"input", times}, {"output", rotation_values}, {"interpolation", "LINEAR"}}}},
         {"channels", {{{"sampler", 0}, {"target", {{"node", 2}, {"path", "rotation"}}}}}}}}}};
  return doc;
}

}  // namespace ks::test
