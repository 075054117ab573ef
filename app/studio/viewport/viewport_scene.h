#pragma once
// ViewportScene: the CPU side of the viewport, with no GL. It turns the
// source and decoded poses into what is drawn: model-space bones, the shapes
// that stand for them, their errors as fractions of their tolerances, the
// skinning palette, the box the clip moves in, and picking a bone under the
// mouse. (Each bone's error right now is measure.h's object_space_errors,
// read against the bone's tolerance.)
// The renderer and the tests both use it.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/clip/skinned_mesh.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/runtime/transform.h"

namespace ks::studio {

/// The source (original) local pose at fractional `frame_time`, clamped to
/// the clip: translations and scales interpolated linearly between the two
/// neighbouring frames, rotations by normalised lerp (neighbours share a
/// hemisphere, RawClip::validate). At a whole frame it is that frame's
/// samples exactly. `local` has one entry per bone.
void source_pose_at(const RawClip& clip, float frame_time, std::span<Transform> local);

/// What stands for one bone in the viewport: a shape from the bone's joint
/// (head) toward one of its children's joints or its end site (tail), in
/// model space, metres. A bone with several children has several shapes.
struct BoneShape {
  int32_t bone = -1;
  Vec3 head;
  Vec3 tail;
};

/// The shapes of a model-space pose, in bone order: one per child and per
/// end site, except that those of one bone at the same point share one. A
/// leaf with neither gets a tail continuing its parent's direction for half
/// the parent's length; a lone root gets head == tail.
void bone_shapes(const Skeleton& skeleton, std::span<const Transform> model, std::vector<BoneShape>& shapes);

/// Per bone, the object-space error now (source and decoded model-space
/// poses, virtual vertices at `distance_m[b]` from bone b, as
/// object_space_errors defines it) and that error as a fraction of the
/// bone's tolerance `tolerance_m[b]` (1 = at it). The viewport colours by
/// the fractions: against the fit's own E and d of each bone by default.
void bone_error_fractions(std::span<const Transform> source_model, std::span<const Transform> decoded_model,
                          std::span<const float> distance_m, std::span<const float> tolerance_m,
                          std::span<float> errors_m, std::span<float> fractions);

/// Per mesh vertex, the fractions of the bones that move it, blended by its
/// skin weights: the mesh shows the error of its bones against their
/// tolerances (the promise is about the bones' virtual vertices, not about
/// mesh vertices at other distances).
void vertex_error_fractions(const SkinnedMesh& mesh, std::span<const float> bone_fractions,
                            std::span<float> fractions);

/// The skinning matrix of every bone for a model-space pose: model times
/// inverse bind (identity when the skeleton has no inverse bind matrices).
void skinning_palette(const Skeleton& skeleton, std::span<const Transform> model, std::span<Mat4> palette);

/// A box, metres; empty when lo > hi.
struct Box {
  glm::vec3 lo{1e30f};
  glm::vec3 hi{-1e30f};
  bool empty() const { return lo.x > hi.x; }
  void add(glm::vec3 p);
};

/// The box every joint and end site of the source clip passes through,
/// sampling at most 512 frames spread evenly (all of them when fewer).
Box clip_bounds(const Skeleton& skeleton, const RawClip& clip);

/// The bone whose shape passes nearest the `cursor` (pixels from the
/// top-left of a viewport of `size`), within `max_px`; a shape closer to the
/// eye wins a tie within 2 px. -1 when none is that close.
int32_t pick_bone(std::span<const BoneShape> shapes, const glm::mat4& view_projection, glm::vec2 size,
                  glm::vec2 cursor, float max_px);

/// The colour ramp for an error as a fraction of its tolerance: green at 0,
/// a yellower green up to 1 (within the tolerance: what the fit promises),
/// red just past 1, magenta from 2 up; linear RGB in 0..1. The step at 1
/// makes a bone over its tolerance stand out however little it is over.
/// The legend draws the same stops; meshes get these colours per vertex.
glm::vec3 error_color(float fraction);
inline constexpr float kErrorRampAt[4] = {0.f, 1.f, 1.f, 2.f};
inline constexpr float kErrorRampStops[4][3] = {
    {0.20f, 0.75f, 0.30f}, {0.62f, 0.85f, 0.22f}, {0.90f, 0.15f, 0.10f}, {0.85f, 0.20f, 0.90f}};

}  // namespace ks::studio
