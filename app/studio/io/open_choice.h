#pragma once
// What the Open dialog has chosen, kept apart from the clip that is open:
// the file under the cursor, its animations and the one chosen. Nothing
// here touches the open clip; only Open (the app, given request()) does.
// Free of ImGui so the tests can check it.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "keystream/clip/skeleton.h"
#include "keystream/runtime/result.h"

namespace ks::studio {

class OpenChoice {
 public:
  /// Lists the animations of a file (for a file with one clip, an empty
  /// list or its one name); the error names the file.
  using ListAnimations = std::function<Result<std::vector<std::string>>(const std::filesystem::path&)>;

  explicit OpenChoice(ListAnimations list_animations) : m_list_animations(std::move(list_animations)) {}

  /// Puts the cursor on `file` and lists its animations, choosing the
  /// first; the file already under the cursor keeps its list and choice.
  /// An empty path clears the cursor.
  void point_at(const std::filesystem::path& file);
  /// Puts the cursor on the open clip's file, whose animations are known
  /// (no listing), with `chosen` chosen.
  void point_at_open(const std::filesystem::path& file, std::vector<std::string> animations, int chosen);
  /// Chooses animation `index` of the file under the cursor; ignored out of range.
  void choose_animation(int index);

  const std::filesystem::path& file() const { return m_file; }
  const std::vector<std::string>& animations() const { return m_animations; }
  /// The animation Open loads: the chosen one, 0 when the file lists none.
  int animation() const { return m_animation; }
  /// Why the file under the cursor could not be listed; empty when it was.
  const std::string& error() const { return m_error; }

 private:
  ListAnimations m_list_animations;
  std::filesystem::path m_file;
  std::vector<std::string> m_animations;
  int m_animation = 0;
  std::string m_error;
};

/// The bone to select once `next` is open, when `selected` of `previous`
/// (null: none was open) was selected: the bone of the same name in `next`,
/// else its first bone. Indices of another rig mean nothing (bone 12 of one
/// rig is the left thigh, of another a spine bone); names often carry over.
int bone_after_open(const Skeleton* previous, int selected, const Skeleton& next);

}  // namespace ks::studio
