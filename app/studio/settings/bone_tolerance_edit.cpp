#include "app/studio/settings/bone_tolerance_edit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ks::studio {

const BoneTolerance* find_bone_tolerance(const FitSettings& settings, std::string_view name) {
  for (const BoneTolerance& o : settings.bone_tolerances) {
    if (o.bone == name) return &o;
  }
  return nullptr;
}

void set_bone_tolerance(FitSettings& settings, const BoneTolerance& tolerance) {
  for (BoneTolerance& o : settings.bone_tolerances) {
    if (o.bone == tolerance.bone) {
      o = tolerance;
      return;
    }
  }
  settings.bone_tolerances.push_back(tolerance);
}

bool remove_bone_tolerance(FitSettings& settings, std::string_view name) {
  std::vector<BoneTolerance>& list = settings.bone_tolerances;
  const auto kept = std::remove_if(list.begin(), list.end(), [name](const BoneTolerance& o) { return o.bone == name; });
  const bool removed = kept != list.end();
  list.erase(kept, list.end());
  return removed;
}

int overriding_bone(const Skeleton& skeleton, const FitSettings& settings, int bone) {
  // The parent chain is finite: Skeleton::validate puts parents before children.
  for (int b = bone; b >= 0 && static_cast<size_t>(b) < skeleton.bone_count(); b = skeleton.parents[static_cast<size_t>(b)]) {
    if (find_bone_tolerance(settings, skeleton.bone_names[static_cast<size_t>(b)]) != nullptr) return b;
    if (skeleton.parents[static_cast<size_t>(b)] >= b) break;  // not a valid skeleton: stop rather than loop
  }
  return -1;
}

std::string format_error_pair_mm(float error_m, float tolerance_m) {
  return format_error_pair(static_cast<double>(error_m) * 1000.0, static_cast<double>(tolerance_m) * 1000.0, 6) + " mm";
}

std::string format_error_pair(double error, double bound, int max_decimals) {
  // Two significant digits of the bound: 0.10, 1.0, 0.010.
  // (The nudge keeps 0.0001f, a hair under 0.1 mm, at 0.1's decimals.)
  int decimals = bound > 0.0 ? 1 - static_cast<int>(std::floor(std::log10(bound) + 1e-6)) : 2;
  decimals = std::clamp(decimals, 1, max_decimals);
  char error_text[32], bound_text[32];
  for (;; ++decimals) {
    std::snprintf(error_text, sizeof error_text, "%.*f", decimals, error);
    std::snprintf(bound_text, sizeof bound_text, "%.*f", decimals, bound);
    if (decimals >= max_decimals || !(error > bound) || std::string_view(error_text) != bound_text) break;
  }
  return std::string(error_text) + " / " + bound_text;
}

}  // namespace ks::studio
