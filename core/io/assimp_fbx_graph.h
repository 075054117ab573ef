#pragma once
// The object graph of an FBX file as the guard reads it before assimp does
// (assimp_guard.h): models and their parent links, animation curves with
// their key counts and what they animate. assimp 5.2 builds its node tree
// by recursion (10,000 nested bones overflow the stack), spends kilobytes
// on every model (70,000 in a 10 MB file take half a gigabyte) and crashes
// on a curve without keys; these are the numbers that predict it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "keystream/runtime/result.h"

namespace ks::assimp {

/// Most models (nodes: bones, meshes, helpers) an FBX file may hold; real
/// characters have a few hundred, whole scenes a few thousand.
inline constexpr size_t kMaxFbxModels = 16384;
/// Deepest chain of models, each the child of the next; real rigs stay under 300.
inline constexpr size_t kMaxFbxDepth = 1024;

class FbxGraph {
 public:
  /// A Model object: its id and name (FBX's "name\0\1Model" or ASCII's "Model::name").
  void add_model(uint64_t id, std::string_view name);
  /// An AnimationCurve object; `record` is the byte offset of its record's
  /// "AnimationCurve" name, where a rewrite hides it from assimp.
  void add_curve(uint64_t id, size_t record);
  /// An AnimationStack object (a take) and its name.
  void add_stack(std::string_view name);
  /// The key count (KeyTime's length) of the curve added last.
  void set_last_curve_keys(uint64_t keys);
  /// A connection: `child` to `parent`, through `property` when it is "OP".
  void add_link(uint64_t child, uint64_t parent, std::string_view property);

  /// Refuses more than kMaxFbxModels models, a chain of models deeper than
  /// kMaxFbxDepth or a loop of them, and a curve with more keys than a clip
  /// of `max_bone_frames` bone-frames could hold with the bones the curves
  /// animate (each key time is a frame or a key pose of every one of them).
  Status check(uint64_t max_bone_frames) const;

  /// Byte offsets of the records of curves without keys.
  std::vector<size_t> empty_curve_records() const;
  /// "Bone.001 Lcl Rotation" for each curve without keys (what it animates,
  /// as far as the links say), at most `limit` of them.
  std::vector<std::string> empty_curve_targets(size_t limit) const;
  size_t empty_curve_count() const;
  /// The takes' names when the file has curves and none has a key: assimp
  /// drops such takes, which the import keeps as still clips. Else empty.
  std::vector<std::string> still_takes() const;

 private:
  struct Curve {
    uint64_t id = 0;
    size_t record = 0;
    uint64_t keys = 0;
  };
  std::unordered_map<uint64_t, std::string> m_models;  // id to name
  std::vector<Curve> m_curves;
  std::vector<std::pair<uint64_t, uint64_t>> m_links;  // child, parent
  struct Target {
    uint64_t parent = 0;
    std::string property;
  };
  // Each object's links to its parents, with their property (a curve node
  // links to its layer and to the model whose property it animates).
  std::unordered_map<uint64_t, std::vector<Target>> m_targets;
  std::vector<std::string> m_stacks;
  /// The model a curve animates and through which property, if the links say.
  const Target* animated_by(uint64_t curve) const;
};

}  // namespace ks::assimp
