#include "tests/io/morph_test_files.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace ks::test {

namespace {

constexpr double kKeyTimesS[] = {0.1, 0.3, 0.5};
constexpr int kKeys = 3;
// [key][target]; the tangents stay within -1..1 so that normalised SHORTs hold them.
constexpr double kWeights[kKeys][kMorphTargets] = {{0.0, 0.5, 0.2}, {1.0, 0.0, 0.6}, {0.25, 1.0, 0.4}};
constexpr double kInTangents[kKeys][kMorphTargets] = {{0.5, -0.25, 0.0}, {-1.0, 0.75, 0.5}, {0.25, 0.0, -0.5}};
constexpr double kOutTangents[kKeys][kMorphTargets] = {{1.0, -0.5, 0.25}, {0.0, 0.5, -1.0}, {-0.75, 0.25, 0.0}};
constexpr const char* kTargetNames[kMorphTargets] = {"smile", "blink", "frown"};

// What a reader decodes from `v` as stored: a float, or a normalised SHORT.
double as_stored(double v, bool normalized_shorts) {
  if (!normalized_shorts) return static_cast<float>(v);
  return std::max(std::round(v * 32767.0) / 32767.0, -1.0);
}

// The weight of `target` at `frame` of a clip at `rate_hz` starting at 0 s,
// as the glTF specification interpolates the keys (held outside them).
double expected_weight(const MorphFileOptions& options, int target, uint32_t frame, double rate_hz) {
  const auto value = [&](int k) { return as_stored(kWeights[k][target], options.normalized_shorts); };
  // Key frames are whole numbers at both rates: compare in frames, not seconds.
  const auto key_frame = [&](int k) { return std::round(kKeyTimesS[k] * rate_hz); };
  const double f = frame;
  if (f <= key_frame(0)) return value(0);
  if (f >= key_frame(kKeys - 1)) return value(kKeys - 1);
  int k = 0;
  while (f >= key_frame(k + 1)) ++k;
  const double s = (f - key_frame(k)) / (key_frame(k + 1) - key_frame(k));
  if (options.interpolation == "STEP") return value(k);
  if (options.interpolation == "LINEAR") return (1.0 - s) * value(k) + s * value(k + 1);
  const double dt = kKeyTimesS[k + 1] - kKeyTimesS[k];
  const double out_tangent = as_stored(kOutTangents[k][target], options.normalized_shorts);
  const double in_tangent = as_stored(kInTangents[k + 1][target], options.normalized_shorts);
  const double s2 = s * s, s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * value(k) + (s3 - 2 * s2 + s) * dt * out_tangent + (-2 * s3 + 3 * s2) * value(k + 1) +
         (s3 - s2) * dt * in_tangent;
}

// The weights sampler's output, key by key: targets' values, or for
// CUBICSPLINE in-tangents, values, out-tangents.
std::vector<double> weight_output(const MorphFileOptions& options) {
  std::vector<double> out;
  for (int k = 0; k < kKeys; ++k) {
    if (options.interpolation == "CUBICSPLINE") out.insert(out.end(), kInTangents[k], kInTangents[k] + kMorphTargets);
    out.insert(out.end(), kWeights[k], kWeights[k] + kMorphTargets);
    if (options.interpolation == "CUBICSPLINE") out.insert(out.end(), kOutTangents[k], kOutTangents[k] + kMorphTargets);
  }
  return out;
}

// Quaternions (x y z w) turning `radians_per_key` more about X each key.
std::vector<float> rotations_about_x(int keys, float radians_per_key) {
  std::vector<float> out;
  for (int k = 0; k < keys; ++k) {
    const float half = 0.5f * radians_per_key * static_cast<float>(k);
    out.insert(out.end(), {std::sin(half), 0.f, 0.f, std::cos(half)});
  }
  return out;
}

}  // namespace

GltfDocument make_skinned_morph_document(const MorphFileOptions& options, MorphFileExpectation& expected) {
  GltfDocument doc;
  BufferBuilder& b = doc.buffer;
  // A quad weighted across the two joints, each target moving it a different way.
  const int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, "VEC3", 3);
  const int joints = b.add_u16({0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4);
  const int weights = b.add_floats({1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4);
  const int indices = b.add_u16({0, 1, 2, 2, 1, 3}, "SCALAR", 1);
  nlohmann::json targets = nlohmann::json::array();
  for (int t = 0; t < kMorphTargets; ++t) {
    std::vector<float> offsets(12, 0.f);
    for (size_t v = 0; v < 4; ++v) offsets[v * 3 + static_cast<size_t>(t)] = 0.1f * static_cast<float>(v + 1);
    targets.push_back({{"POSITION", b.add_floats(offsets, "VEC3", 3)}});
  }
  const int ibm = b.add_floats({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,  //
                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1},
                               "MAT4", 16);
  const int rotation_times = b.add_floats({0.f, 0.1f, 0.2f, 0.3f, 0.4f}, "SCALAR", 1);
  const int lower_rotations = b.add_floats(rotations_about_x(5, 0.2f), "VEC4", 4);
  const int upper_rotations = b.add_floats(rotations_about_x(5, -0.3f), "VEC4", 4);
  std::vector<float> weight_times;
  for (const double t : kKeyTimesS) weight_times.push_back(static_cast<float>(t));
  const int weight_key_times = b.add_floats(weight_times, "SCALAR", 1);
  const std::vector<double> output = weight_output(options);
  int weight_values = -1;
  if (options.normalized_shorts) {
    std::vector<uint16_t> shorts;
    for (const double v : output) {
      const auto q = static_cast<int16_t>(std::lround(v * 32767.0));
      uint16_t bits;
      std::memcpy(&bits, &q, sizeof bits);
      shorts.push_back(bits);
    }
    weight_values = b.add_u16(shorts, "SCALAR", 1);
    b.accessors[static_cast<size_t>(weight_values)]["componentType"] = 5122;  // SHORT
    b.accessors[static_cast<size_t>(weight_values)]["normalized"] = true;
  } else {
    weight_values = b.add_floats(std::vector<float>(output.begin(), output.end()), "SCALAR", 1);
  }

  nlohmann::json mesh = {{"name", "face_mesh"},
                         {"weights", {0, 0, 0}},
                         {"primitives",
                          {{{"attributes", {{"POSITION", positions}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}},
                            {"indices", indices},
                            {"targets", targets}}}}};
  if (options.target_names) {
    mesh["extras"] = {{"targetNames", std::vector<std::string>(std::begin(kTargetNames), std::end(kTargetNames))}};
  }
  doc.json = {{"asset", {{"version", "2.0"}}},
              {"scene", 0},
              {"scenes", {{{"nodes", {0, kMorphNode}}}}},
              {"nodes",
               {{{"name", "rig"}, {"children", {1}}},
                {{"name", "lower"}, {"children", {2}}},
                {{"name", "upper"}, {"translation", {0, 1, 0}}},
                {{"name", "face"}, {"mesh", 0}, {"skin", 0}}}},
              {"meshes", {mesh}},
              {"skins", {{{"joints", {1, 2}}, {"inverseBindMatrices", ibm}}}},
              {"animations",
               {{{"name", "talk"},
                 {"samplers",
                  {{{"input", rotation_times}, {"output", lower_rotations}, {"interpolation", "LINEAR"}},
                   {{"input", rotation_times}, {"output", upper_rotations}, {"interpolation", "LINEAR"}},
                   {{"input", weight_key_times}, {"output", weight_values}, {"interpolation", options.interpolation}}}},
                 {"channels",
                  {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "rotation"}}}},
                   {{"sampler", 1}, {"target", {{"node", 2}, {"path", "rotation"}}}},
                   {{"sampler", 2}, {"target", {{"node", kMorphNode}, {"path", "weights"}}}}}}}}}};

  // Keys every 0.1 s, all LINEAR: the keys' own 10 Hz. A STEP or CUBICSPLINE
  // channel raises it to 30 Hz (gltf_sample_rate.h), to show the jump or bulge.
  expected = {};
  expected.sample_rate_hz = options.interpolation == "LINEAR" ? 10.f : 30.f;
  expected.frame_count = static_cast<uint32_t>(std::lround(0.5 * expected.sample_rate_hz)) + 1;
  for (int t = 0; t < kMorphTargets; ++t) {
    expected.track_names.push_back("face/" + (options.target_names ? std::string(kTargetNames[t]) : std::to_string(t)));
  }
  for (const double t : kKeyTimesS) {
    expected.key_frames.push_back(static_cast<uint32_t>(std::lround(t * expected.sample_rate_hz)));
  }
  for (uint32_t f = 0; f < expected.frame_count; ++f) {
    std::vector<float>& frame = expected.weights.emplace_back();
    for (int t = 0; t < kMorphTargets; ++t) {
      frame.push_back(static_cast<float>(expected_weight(options, t, f, expected.sample_rate_hz)));
    }
  }
  expected.weights_output_accessor = weight_values;
  return doc;
}

MorphFileExpectation write_skinned_morph_file(const std::filesystem::path& path, const MorphFileOptions& options) {
  MorphFileExpectation expected;
  const GltfDocument doc = make_skinned_morph_document(options, expected);
  std::ofstream(path, std::ios::binary) << doc.text();
  return expected;
}

}  // namespace ks::test
