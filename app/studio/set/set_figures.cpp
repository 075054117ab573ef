#include "app/studio/set/set_figures.h"

#include <algorithm>
#include <numeric>

namespace ks::studio {

SetFigures set_figures(const SetRow& row) {
  SetFigures f;
  if (!row.result) return f;
  const FitResult& r = *row.result;
  f.has_result = true;
  f.frames = r.clip->clip.frame_count;
  f.bytes = r.stream.size();
  f.raw_bytes = r.measurement.sizes.raw_bytes;
  f.keys = r.measurement.sizes.key_count;
  f.ratio = f.bytes > 0 ? static_cast<double>(f.raw_bytes) / static_cast<double>(f.bytes) : 0.0;
  f.fit_ms = r.fit_ms;
  if (const int worst = worst_bone(r); worst >= 0) {
    const size_t b = static_cast<size_t>(worst);
    f.max_error_m = r.measurement.bone_error_m[b];
    f.tolerance_m = r.bone_tolerance_m[b];
    f.error_share = f.tolerance_m > 0.f ? static_cast<double>(f.max_error_m / f.tolerance_m) : 0.0;
    if (b < r.clip->skeleton.bone_names.size()) f.worst_bone = r.clip->skeleton.bone_names[b];
    for (size_t i = 0; i < r.measurement.bone_error_m.size() && i < r.bone_tolerance_m.size(); ++i) {
      f.over = f.over || r.measurement.bone_error_m[i] > r.bone_tolerance_m[i];
    }
  }
  const std::vector<TrackError>& scalar_errors = r.measurement.scalar_tracks;
  double worst_share = -1.0;
  for (size_t s = 0; s < scalar_errors.size() && s < r.fitted.scalars.size(); ++s) {
    const float precision = r.fitted.scalars[s].precision;
    const double share = precision > 0.f ? static_cast<double>(scalar_errors[s].max / precision) : 0.0;
    f.over = f.over || scalar_errors[s].max > precision;
    if (share > worst_share) {
      worst_share = share;
      f.has_scalars = true;
      f.scalar_error = scalar_errors[s].max;
      f.scalar_precision = precision;
    }
  }
  return f;
}

SetTotals set_totals(const std::vector<SetRow>& rows, const std::vector<SetFigures>& figures) {
  SetTotals t;
  t.clips = rows.size();
  for (size_t i = 0; i < rows.size() && i < figures.size(); ++i) {
    const SetFigures& f = figures[i];
    t.failed += rows[i].state == SetRowState::kFailed;
    if (!f.has_result) continue;
    ++t.with_result;
    t.over += f.over;
    t.frames += f.frames;
    t.bytes += f.bytes;
    t.raw_bytes += f.raw_bytes;
    t.keys += f.keys;
    t.fit_ms += f.fit_ms;
    if (t.with_result == 1 || f.error_share > t.worst_error_share) {
      t.worst_error_share = f.error_share;
      t.worst_clip = i;
    }
  }
  return t;
}

namespace {

int state_order(SetRowState s) {
  switch (s) {
    case SetRowState::kFailed: return 0;
    case SetRowState::kRunning: return 1;
    case SetRowState::kWaiting: return 2;
    case SetRowState::kDone: return 3;
  }
  return 4;
}

}  // namespace

std::vector<size_t> sorted_rows(const std::vector<SetRow>& rows, const std::vector<SetFigures>& figures,
                                SetColumn column, bool descending) {
  std::vector<size_t> order(std::min(rows.size(), figures.size()));
  std::iota(order.begin(), order.end(), size_t{0});
  // -1, 0, 1 for a before, equal to, after b.
  const auto compare = [&](size_t a, size_t b) -> int {
    const SetFigures& fa = figures[a];
    const SetFigures& fb = figures[b];
    const auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
    switch (column) {
      case SetColumn::kClip: return cmp(set_row_label(rows[a]), set_row_label(rows[b]));
      case SetColumn::kFrames: return cmp(fa.frames, fb.frames);
      case SetColumn::kBytes:
      case SetColumn::kShare: return cmp(fa.bytes, fb.bytes);
      case SetColumn::kKeys: return cmp(fa.keys, fb.keys);
      case SetColumn::kRatio: return cmp(fa.ratio, fb.ratio);
      case SetColumn::kError: return cmp(fa.error_share, fb.error_share);
      case SetColumn::kScalar:
        return cmp(fa.scalar_precision > 0.f ? fa.scalar_error / fa.scalar_precision : 0.f,
                   fb.scalar_precision > 0.f ? fb.scalar_error / fb.scalar_precision : 0.f);
      case SetColumn::kWorstBone: return cmp(fa.worst_bone, fb.worst_bone);
      case SetColumn::kFitTime: return cmp(fa.fit_ms, fb.fit_ms);
      case SetColumn::kStatus: return cmp(state_order(rows[a].state), state_order(rows[b].state));
      case SetColumn::kCount: break;
    }
    return 0;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int c = compare(a, b);
    return descending ? c > 0 : c < 0;
  });
  return order;
}

std::string set_row_label(const SetRow& row) {
  std::string label = row.source.filename().string();
  if (!row.animation_name.empty()) label += " / " + row.animation_name;
  return label;
}

}  // namespace ks::studio
