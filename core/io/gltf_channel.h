#pragma once
// One glTF animation channel, checked and ready to sample (internal to the
// glTF importer): what resampling, the rate choice and the key poses read.

#include <array>
#include <vector>

namespace ks::gltf {

enum class Path { kTranslation, kRotation, kScale, kWeight };
enum class Interpolation { kStep, kLinear, kCubicSpline };

struct Channel {
  int bone = -1;    // the bone it moves (translation, rotation, scale)
  int scalar = -1;  // kWeight: the RawClip::scalars track it drives, one component (a morph-target weight)
  Path path = Path::kTranslation;
  Interpolation interpolation = Interpolation::kLinear;
  std::vector<float> times;   // non-decreasing, seconds
  std::vector<float> values;  // components per key (x3 for CUBICSPLINE: in-tangent, value, out-tangent)
  int components = 3;
};

/// Value of `channel` at time t (seconds) as the glTF specification defines
/// it: held before the first key and after the last; a STEP key's value from
/// its own time on. Only a rotation interpolates spherically; every other
/// path component by component.
std::array<double, 4> sample_channel(const Channel& channel, double t);

}  // namespace ks::gltf
