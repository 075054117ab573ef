#include "app/studio/viewport/viewport_scene.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "app/studio/viewport/orbit_camera.h"
#include "keystream/codec/object_space_error.h"
#include "keystream/runtime/player.h"

namespace ks::studio {
namespace {

constexpr uint32_t kMaxBoundsFrames = 512;
constexpr float kPickTiePx = 2.f;

glm::vec3 to_glm(Vec3 v) {
  return {v.x, v.y, v.z};
}

Vec3 lerp(Vec3 a, Vec3 b, float t) {
  return (1.f - t) * a + t * b;
}

/// Where a shape lies on screen: its distance to the cursor, pixels, and
/// the depth (0..1, 0 near) of its point nearest the cursor.
struct ShapeHit {
  bool visible = false;
  float distance_px = 0.f;
  float depth = 0.f;
};

ShapeHit hit_shape(const BoneShape& shape, const glm::mat4& view_projection, glm::vec2 size, glm::vec2 cursor) {
  glm::vec4 a = view_projection * glm::vec4(to_glm(shape.head), 1.f);
  glm::vec4 b = view_projection * glm::vec4(to_glm(shape.tail), 1.f);
  // Clip to the near plane (z >= -w in OpenGL clip space), so that a bone
  // passing beside the eye still has the part in front of it.
  const float da = a.z + a.w;
  const float db = b.z + b.w;
  if (da < 0.f && db < 0.f) return {};
  if (da < 0.f) a = glm::mix(a, b, da / (da - db));
  if (db < 0.f) b = glm::mix(b, a, db / (db - da));
  if (!(a.w > 0.f) || !(b.w > 0.f)) return {};
  const auto to_screen = [size](glm::vec4 c) {
    const glm::vec3 ndc = glm::vec3(c) / c.w;
    return glm::vec3{(0.5f + 0.5f * ndc.x) * size.x, (0.5f - 0.5f * ndc.y) * size.y, 0.5f + 0.5f * ndc.z};
  };
  const glm::vec3 sa = to_screen(a);
  const glm::vec3 sb = to_screen(b);
  const glm::vec2 ab = glm::vec2(sb) - glm::vec2(sa);
  const float ab2 = glm::dot(ab, ab);
  const float s = ab2 > 0.f ? std::clamp(glm::dot(cursor - glm::vec2(sa), ab) / ab2, 0.f, 1.f) : 0.f;
  // Window depth is affine along a projected segment, so it interpolates with s.
  const glm::vec3 nearest = glm::mix(sa, sb, s);
  return {true, glm::length(cursor - glm::vec2(nearest)), nearest.z};
}

// Children or end sites of one bone at the same point give the same shape
// again; a rig with thousands of siblings at one offset would draw (and a
// software rasterizer would shade) thousands of copies over each other. Keeps
// the first of each bone's shapes with a given tail, in order. `first[b]` is
// where bone b's shapes start.
void remove_repeated_shapes(std::span<const uint32_t> first, std::vector<BoneShape>& shapes) {
  std::vector<uint32_t> order;
  std::vector<uint8_t> repeated(shapes.size(), 0);
  const auto tail_less = [&](uint32_t a, uint32_t b) {
    const Vec3 p = shapes[a].tail, q = shapes[b].tail;
    if (p.x != q.x) return p.x < q.x;
    if (p.y != q.y) return p.y < q.y;
    if (p.z != q.z) return p.z < q.z;
    return a < b;
  };
  for (size_t b = 0; b + 1 < first.size(); ++b) {
    if (first[b + 1] - first[b] < 2) continue;
    order.resize(first[b + 1] - first[b]);
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = first[b] + i;
    // Sorted by tail, then by slot: each run of one tail starts with its first slot.
    std::sort(order.begin(), order.end(), tail_less);
    for (size_t i = 1; i < order.size(); ++i) {
      const Vec3 p = shapes[order[i - 1]].tail, q = shapes[order[i]].tail;
      if (p.x == q.x && p.y == q.y && p.z == q.z) repeated[order[i]] = 1;
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (repeated[i] == 0) shapes[kept++] = shapes[i];
  }
  shapes.resize(kept);
}

}  // namespace

void source_pose_at(const RawClip& clip, float frame_time, std::span<Transform> local) {
  assert(local.size() == clip.bones.size());
  if (clip.frame_count == 0) {
    std::fill(local.begin(), local.end(), Transform{});
    return;
  }
  const uint32_t last = clip.frame_count - 1;
  // NaN becomes frame 0 (std::clamp would pass it through).
  const float t = frame_time > 0.f ? std::min(frame_time, static_cast<float>(last)) : 0.f;
  const uint32_t f0 = std::min(static_cast<uint32_t>(t), last);
  const uint32_t f1 = std::min(f0 + 1, last);
  const float a = t - static_cast<float>(f0);
  for (size_t b = 0; b < local.size(); ++b) {
    const BoneTracks& bone = clip.bones[b];
    assert(bone.translations.size() > last && bone.rotations.size() > last && bone.scales.size() > last);
    if (a == 0.f) {
      local[b] = {bone.translations[f0], bone.rotations[f0], bone.scales[f0]};
      continue;
    }
    const Quat q0 = bone.rotations[f0];
    const Quat q1 = bone.rotations[f1];
    const Quat q{(1.f - a) * q0.x + a * q1.x, (1.f - a) * q0.y + a * q1.y, (1.f - a) * q0.z + a * q1.z,
                 (1.f - a) * q0.w + a * q1.w};
    local[b] = {lerp(bone.translations[f0], bone.translations[f1], a), normalize(q),
                lerp(bone.scales[f0], bone.scales[f1], a)};
  }
}

void bone_shapes(const Skeleton& skeleton, std::span<const Transform> model, std::vector<BoneShape>& shapes) {
  const size_t bone_count = skeleton.bone_count();
  assert(model.size() >= bone_count && skeleton.parents.size() == bone_count);
  // Shapes per bone (children and end sites, or the one leaf shape), then
  // each bone's first slot, so that the shapes come out in bone order.
  std::vector<uint32_t> slot_count(bone_count, 0);
  for (size_t b = 0; b < bone_count; ++b) {
    if (skeleton.parents[b] >= 0) ++slot_count[static_cast<size_t>(skeleton.parents[b])];
  }
  for (const EndSite& site : skeleton.end_sites) {
    if (site.parent >= 0 && static_cast<size_t>(site.parent) < bone_count) {
      ++slot_count[static_cast<size_t>(site.parent)];
    }
  }
  std::vector<uint32_t> first(bone_count + 1, 0);
  for (size_t b = 0; b < bone_count; ++b) first[b + 1] = first[b] + std::max(slot_count[b], 1u);
  std::vector<uint32_t> next(first.begin(), first.end() - 1);
  const uint32_t total = first[bone_count];
  shapes.assign(total, BoneShape{});
  const auto emit = [&](size_t bone, Vec3 tail) {
    shapes[next[bone]++] = {static_cast<int32_t>(bone), model[bone].translation, tail};
  };
  for (size_t b = 0; b < bone_count; ++b) {
    if (skeleton.parents[b] >= 0) emit(static_cast<size_t>(skeleton.parents[b]), model[b].translation);
  }
  for (const EndSite& site : skeleton.end_sites) {
    if (site.parent >= 0 && static_cast<size_t>(site.parent) < bone_count) {
      const size_t parent = static_cast<size_t>(site.parent);
      emit(parent, transform_point(model[parent], site.offset));
    }
  }
  // Bones left with their slot unfilled are leaves without an end site, or
  // lone roots.
  for (size_t b = 0; b < bone_count; ++b) {
    if (next[b] != first[b]) continue;
    const Vec3 head = model[b].translation;
    const int32_t parent = skeleton.parents[b];
    const Vec3 tail = parent < 0 ? head : head + 0.5f * (head - model[static_cast<size_t>(parent)].translation);
    emit(b, tail);
  }
  remove_repeated_shapes(first, shapes);
}

void bone_error_fractions(std::span<const Transform> source_model, std::span<const Transform> decoded_model,
                          std::span<const float> distance_m, std::span<const float> tolerance_m,
                          std::span<float> errors_m, std::span<float> fractions) {
  assert(distance_m.size() == errors_m.size() && tolerance_m.size() == errors_m.size());
  assert(fractions.size() == errors_m.size());
  object_space_errors(source_model, decoded_model, distance_m, errors_m);
  for (size_t b = 0; b < errors_m.size(); ++b) {
    // A tolerance that is not positive cannot be met: any error is over it.
    fractions[b] = tolerance_m[b] > 0.f ? errors_m[b] / tolerance_m[b] : (errors_m[b] > 0.f ? 1e9f : 0.f);
  }
}

void vertex_error_fractions(const SkinnedMesh& mesh, std::span<const float> bone_fractions,
                            std::span<float> fractions) {
  assert(fractions.size() == mesh.vertex_count());
  for (size_t v = 0; v < mesh.vertex_count(); ++v) {
    float sum = 0.f;
    for (size_t i = 0; i < 4; ++i) {
      const size_t joint = mesh.joints[v][i];
      if (joint < bone_fractions.size()) sum += mesh.weights[v][i] * bone_fractions[joint];
    }
    fractions[v] = sum;
  }
}

void skinning_palette(const Skeleton& skeleton, std::span<const Transform> model, std::span<Mat4> palette) {
  const size_t bone_count = skeleton.bone_count();
  assert(model.size() >= bone_count && palette.size() >= bone_count);
  const bool has_bind = skeleton.inverse_bind.size() == bone_count;
  for (size_t b = 0; b < bone_count; ++b) {
    const Mat4 m = to_matrix(model[b]);
    palette[b] = has_bind ? m * skeleton.inverse_bind[b] : m;
  }
}

void Box::add(glm::vec3 p) {
  lo = glm::min(lo, p);
  hi = glm::max(hi, p);
}

Box clip_bounds(const Skeleton& skeleton, const RawClip& clip) {
  Box box;
  const size_t bone_count = skeleton.bone_count();
  if (clip.frame_count == 0 || bone_count == 0) return box;
  assert(clip.bones.size() == bone_count);
  const uint32_t sample_count = std::min(clip.frame_count, kMaxBoundsFrames);
  std::vector<Transform> local(bone_count), model(bone_count);
  for (uint32_t i = 0; i < sample_count; ++i) {
    // Evenly from the first frame to the last, both included.
    const uint32_t frame =
        sample_count == 1 ? 0 : static_cast<uint32_t>(uint64_t{i} * (clip.frame_count - 1) / (sample_count - 1));
    for (size_t b = 0; b < bone_count; ++b) {
      const BoneTracks& bone = clip.bones[b];
      local[b] = {bone.translations[frame], bone.rotations[frame], bone.scales[frame]};
    }
    local_to_model(skeleton.parents, local, model);
    for (const Transform& t : model) box.add(to_glm(t.translation));
    for (const EndSite& site : skeleton.end_sites) {
      if (site.parent < 0 || static_cast<size_t>(site.parent) >= bone_count) continue;
      box.add(to_glm(transform_point(model[static_cast<size_t>(site.parent)], site.offset)));
    }
  }
  return box;
}

int32_t pick_bone(std::span<const BoneShape> shapes, const glm::mat4& view_projection, glm::vec2 size, glm::vec2 cursor,
                  float max_px) {
  // First the nearest distance on screen; then, among the shapes within the
  // tie of it, the one nearest the eye, so a bone drawn over another wins
  // whatever their order.
  float nearest_px = max_px;
  bool any = false;
  for (const BoneShape& shape : shapes) {
    const ShapeHit hit = hit_shape(shape, view_projection, size, cursor);
    if (hit.visible && hit.distance_px <= nearest_px) {
      nearest_px = hit.distance_px;
      any = true;
    }
  }
  if (!any) return -1;
  const float tie_px = std::min(nearest_px + kPickTiePx, max_px);
  int32_t best = -1;
  float best_depth = 0.f;
  for (const BoneShape& shape : shapes) {
    const ShapeHit hit = hit_shape(shape, view_projection, size, cursor);
    if (hit.visible && hit.distance_px <= tie_px && (best < 0 || hit.depth < best_depth)) {
      best = shape.bone;
      best_depth = hit.depth;
    }
  }
  return best;
}

glm::vec3 error_color(float fraction) {
  const auto stop = [](int i) {
    return glm::vec3{kErrorRampStops[i][0], kErrorRampStops[i][1], kErrorRampStops[i][2]};
  };
  // NaN shows as the worst colour: an error that cannot be computed is not fine.
  if (std::isnan(fraction)) return stop(3);
  if (fraction <= kErrorRampAt[0]) return stop(0);
  for (int i = 1; i < 4; ++i) {
    if (fraction <= kErrorRampAt[i]) {
      const float t = (fraction - kErrorRampAt[i - 1]) / (kErrorRampAt[i] - kErrorRampAt[i - 1]);
      // Written so that t = 0 and t = 1 give the stops exactly.
      return (1.f - t) * stop(i - 1) + t * stop(i);
    }
  }
  return stop(3);
}

}  // namespace ks::studio
