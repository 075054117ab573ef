#include "keystream/io/gltf_channel.h"

#include <algorithm>
#include <cmath>

namespace ks::gltf {

std::array<double, 4> sample_channel(const Channel& channel, double t) {
  const size_t comps = static_cast<size_t>(channel.components);
  const bool cubic = channel.interpolation == Interpolation::kCubicSpline;
  const size_t stride = cubic ? comps * 3 : comps;
  const size_t value_offset = cubic ? comps : 0;  // skip the in-tangent
  auto value = [&](size_t key, size_t c) {
    return static_cast<double>(channel.values[key * stride + value_offset + c]);
  };
  std::array<double, 4> out{0, 0, 0, 0};

  const size_t n = channel.times.size();
  // First key with time > t; the segment is [next - 1, next].
  const size_t next = static_cast<size_t>(
      std::upper_bound(channel.times.begin(), channel.times.end(), t, [](double a, float b) { return a < b; }) -
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

}  // namespace ks::gltf
