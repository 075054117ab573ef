#pragma once
// An additive clip's base (DESIGN §3): the poses its bones are the
// difference to. A RawClip carries it so that every error (fit, measure,
// verify, the studio) is taken on the composed pose base ⊕ additive.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/transform.h"

namespace ks {

const char* to_string(AdditiveBase base);

struct AdditiveBasePoses {
  AdditiveBase kind = AdditiveBase::kNone;  // kNone: the clip is not additive
  std::string name;                         // kClip: the base's file and animation
  /// Local poses, one transform per bone: one pose (first frame, bind pose)
  /// or one per frame of the clip (kClip).
  std::vector<Transform> poses;

  bool additive() const { return kind != AdditiveBase::kNone; }
  /// The base at `frame` (`bones` transforms).
  std::span<const Transform> at(uint32_t frame, size_t bones) const {
    const size_t first = poses.size() > bones ? size_t{frame} * bones : 0;
    return {poses.data() + first, bones};
  }
};

}  // namespace ks
