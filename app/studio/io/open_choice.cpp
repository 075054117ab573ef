#include "app/studio/io/open_choice.h"

namespace ks::studio {

void OpenChoice::point_at(const std::filesystem::path& file) {
  if (file == m_file) return;
  m_file = file;
  m_animations.clear();
  m_animation = 0;
  m_error.clear();
  if (file.empty()) return;
  Result<std::vector<std::string>> listed = m_list_animations(file);
  if (listed) {
    m_animations = std::move(listed.value());
  } else {
    m_error = listed.error();
  }
}

void OpenChoice::point_at_open(const std::filesystem::path& file, std::vector<std::string> animations, int chosen) {
  m_file = file;
  m_animations = std::move(animations);
  m_animation = 0;
  m_error.clear();
  choose_animation(chosen);
}

void OpenChoice::choose_animation(int index) {
  if (index >= 0 && static_cast<size_t>(index) < m_animations.size()) m_animation = index;
}

int bone_after_open(const Skeleton* previous, int selected, const Skeleton& next) {
  if (previous == nullptr || selected < 0 || static_cast<size_t>(selected) >= previous->bone_count()) return 0;
  const int same_name = next.find_bone(previous->bone_names[static_cast<size_t>(selected)]);
  return same_name >= 0 ? same_name : 0;
}

}  // namespace ks::studio
