#pragma once
// What the set table shows of one clip's fit, and the set's totals, kept
// free of ImGui so the tests can check them; and the table's sort order.
#include <cstddef>
#include <string>
#include <vector>

#include "app/studio/set/set_fitter.h"

namespace ks::studio {

/// One row's figures, from its newest result (all zero without one).
struct SetFigures {
  bool has_result = false;
  uint32_t frames = 0;
  size_t bytes = 0;      // the stream file as Save all writes it
  size_t raw_bytes = 0;  // float32 T/R/S of every bone at every frame
  size_t keys = 0;
  double ratio = 0.0;        // raw_bytes / bytes
  float max_error_m = 0.f;   // the worst bone's largest object-space error
  float tolerance_m = 0.f;   // and its tolerance
  double error_share = 0.0;  // max_error_m / tolerance_m over the bones (1: at the bound)
  std::string worst_bone;    // that bone's name
  bool has_scalars = false;
  float scalar_error = 0.f;      // the scalar track nearest its precision: its largest error
  float scalar_precision = 0.f;  // and its precision
  double fit_ms = 0.0;
  bool over = false;  // some bone or scalar track is over its bound
};

SetFigures set_figures(const SetRow& row);

/// The set's totals over the rows with a result.
struct SetTotals {
  size_t clips = 0, with_result = 0, failed = 0, over = 0;
  uint64_t frames = 0;
  size_t bytes = 0, raw_bytes = 0, keys = 0;
  double fit_ms = 0.0;
  double worst_error_share = 0.0;  // the largest error_share of any clip
  size_t worst_clip = 0;           // its row
  double ratio() const { return bytes > 0 ? static_cast<double>(raw_bytes) / static_cast<double>(bytes) : 0.0; }
};

SetTotals set_totals(const std::vector<SetRow>& rows, const std::vector<SetFigures>& figures);

/// The table's columns, in order.
enum class SetColumn : int {
  kClip,
  kFrames,
  kBytes,
  kShare,
  kKeys,
  kRatio,
  kError,
  kScalar,
  kWorstBone,
  kFitTime,
  kStatus,
  kCount
};

/// Row indices ordered by `column` (ascending, or descending); ties keep
/// the set's order, so a sort is stable across refits.
std::vector<size_t> sorted_rows(const std::vector<SetRow>& rows, const std::vector<SetFigures>& figures,
                                SetColumn column, bool descending);

/// "robot.glb / Dance": how the table and messages name a row.
std::string set_row_label(const SetRow& row);

}  // namespace ks::studio
