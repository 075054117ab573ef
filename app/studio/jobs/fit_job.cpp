#include "app/studio/jobs/fit_job.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "keystream/codec/error_budget.h"

namespace ks::studio {

namespace {
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
// Each bone's E and d: the fit's own, or (local mode) the settings'. An
// override naming no bone (local mode does not check them) leaves the
// clip-wide values.
void bone_tolerances_of(const ImportedClip& clip, const FitSettings& settings, const FittedClip& fitted,
                        FitResult& result) {
  const size_t bone_count = clip.skeleton.bone_count();
  if (fitted.bones.size() == bone_count) {
    for (const BoneFit& bone : fitted.bones) {
      result.bone_tolerance_m.push_back(bone.tolerance_m);
      result.bone_shell_distance_m.push_back(bone.shell_distance_m);
    }
    return;
  }
  Result<BoneTolerances> resolved =
      resolve_bone_tolerances(clip.skeleton, settings.tolerance_m, settings.shell_distance_m, settings.bone_tolerances);
  if (resolved) {
    result.bone_tolerance_m = std::move(resolved.value().tolerance_m);
    result.bone_shell_distance_m = std::move(resolved.value().shell_distance_m);
  } else {
    result.bone_tolerance_m.assign(bone_count, settings.tolerance_m);
    result.bone_shell_distance_m.assign(bone_count, settings.shell_distance_m);
  }
}

// Packs, opens and measures `out.fitted`; stops between stages when abandoned.
void pack_and_measure(const ImportedClip& clip, const CodecSettings& settings, FitResult& out,
                      RunProgress* progress) {
  FitResult* const result = &out;
  const auto enter = [&](FitStage stage) {
    if (progress == nullptr) return true;
    if (progress->fit.abandoned()) {
      result->abandoned = true;
      result->error = kFitAbandonedError;
      return false;
    }
    progress->stage.store(stage, std::memory_order_relaxed);
    return true;
  };
  if (!enter(FitStage::kPacking)) return;
  auto start = std::chrono::steady_clock::now();
  PackSettings pack_settings = settings.pack;
  pack_settings.source_name = clip.source.filename().string();
  Result<std::vector<uint8_t>> packed = pack(result->fitted, pack_settings);
  if (!packed) {
    result->error = packed.error();
    return;
  }
  result->stream = std::move(packed.value());
  Result<StreamView> view = StreamView::open(result->stream, "fitted stream");
  result->pack_ms = ms_since(start);
  if (!view) {
    result->error = view.error();
    return;
  }
  result->view = std::move(view.value());
  if (!enter(FitStage::kMeasuring)) return;
  start = std::chrono::steady_clock::now();
  MeasureSettings measure_settings;
  measure_settings.bone_shell_distance_m = result->bone_shell_distance_m;
  Result<ClipMeasurement> measured = measure(clip.skeleton, clip.clip, result->view, measure_settings);
  result->measure_ms = ms_since(start);
  if (!measured) {
    result->error = measured.error();
    return;
  }
  result->measurement = std::move(measured.value());
}

}  // namespace

std::shared_ptr<const FitResult> run_fit(std::shared_ptr<const ImportedClip> source, const CodecSettings& settings,
                                         uint64_t generation, unsigned threads, RunProgress* progress) {
  const ImportedClip& clip = *source;
  auto result = std::make_shared<FitResult>();
  result->clip = std::move(source);
  result->generation = generation;
  result->settings = settings;
  const auto start = std::chrono::steady_clock::now();
  Result<FittedClip> fitted =
      fit_clip(clip.skeleton, clip.clip, settings.fit, threads, progress != nullptr ? &progress->fit : nullptr);
  result->fit_ms = ms_since(start);
  if (!fitted) {
    result->abandoned = progress != nullptr && progress->fit.abandoned();
    result->error = fitted.error();
    return result;
  }
  if (progress != nullptr && progress->fit.abandoned()) {
    result->abandoned = true;
    result->error = kFitAbandonedError;
    return result;
  }
  result->fitted = std::move(fitted.value());
  bone_tolerances_of(clip, settings.fit, result->fitted, *result);
  pack_and_measure(clip, settings, *result, progress);
  return result;
}

std::shared_ptr<const FitResult> repack(const FitResult& previous, const CodecSettings& settings,
                                        uint64_t generation, RunProgress* progress) {
  auto result = std::make_shared<FitResult>();
  result->clip = previous.clip;
  result->generation = generation;
  result->settings = settings;
  result->fitted = previous.fitted;
  result->fit_ms = previous.fit_ms;
  result->bone_tolerance_m = previous.bone_tolerance_m;
  result->bone_shell_distance_m = previous.bone_shell_distance_m;
  pack_and_measure(*result->clip, settings, *result, progress);
  return result;
}

bool bone_moves(const FitResult& result, size_t bone) {
  for (size_t k = 0; k < 3 && 3 * bone + k < result.fitted.tracks.size(); ++k) {
    if (result.fitted.tracks[3 * bone + k].coding == TrackCoding::kAnimated) return true;
  }
  return false;
}

int worst_bone(const FitResult& result, bool moving_only) {
  const std::vector<float>& error = result.measurement.bone_error_m;
  const size_t bones = std::min(error.size(), result.bone_tolerance_m.size());
  int worst = -1;
  for (size_t b = 0; b < bones; ++b) {
    if (moving_only && !bone_moves(result, b)) continue;
    const size_t w = static_cast<size_t>(worst);
    if (worst < 0 || error[b] / result.bone_tolerance_m[b] > error[w] / result.bone_tolerance_m[w]) {
      worst = static_cast<int>(b);
    }
  }
  return worst < 0 && moving_only ? worst_bone(result, false) : worst;
}

}  // namespace ks::studio
