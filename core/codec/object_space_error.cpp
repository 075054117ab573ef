#include "keystream/codec/object_space_error.h"

#include <algorithm>
#include <cassert>

namespace ks {

namespace {

float bone_error(const Transform& source, const Transform& decoded, float r) {
  float worst = 0.f;
  for (const Vec3& offset : {Vec3{r, 0, 0}, Vec3{0, r, 0}, Vec3{0, 0, r}}) {
    worst = std::max(worst, length(transform_point(source, offset) - transform_point(decoded, offset)));
  }
  return worst;
}

}  // namespace

void object_space_errors(std::span<const Transform> source_model, std::span<const Transform> decoded_model,
                         float distance_m, std::span<float> errors_m) {
  assert(source_model.size() == decoded_model.size() && errors_m.size() >= source_model.size());
  for (size_t b = 0; b < source_model.size(); ++b) errors_m[b] = bone_error(source_model[b], decoded_model[b], distance_m);
}

void object_space_errors(std::span<const Transform> source_model, std::span<const Transform> decoded_model,
                         std::span<const float> distance_m, std::span<float> errors_m) {
  assert(source_model.size() == decoded_model.size() && errors_m.size() >= source_model.size() &&
         distance_m.size() >= source_model.size());
  for (size_t b = 0; b < source_model.size(); ++b) {
    errors_m[b] = bone_error(source_model[b], decoded_model[b], distance_m[b]);
  }
}

}  // namespace ks
