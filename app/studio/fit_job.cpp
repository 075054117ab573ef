#include "app/studio/fit_job.h"

#include <chrono>
#include <cstring>

namespace ks::studio {

namespace {
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

std::shared_ptr<const FitResult> run_fit(std::shared_ptr<const ImportedClip> source, const CodecSettings& settings,
                                         uint64_t generation, unsigned threads) {
  const ImportedClip& clip = *source;
  auto result = std::make_shared<FitResult>();
  result->clip = std::move(source);
  result->generation = generation;
  result->settings = settings;
  auto start = std::chrono::steady_clock::now();
  Result<FittedClip> fitted = fit_clip(clip.skeleton, clip.clip, settings.fit, threads);
  result->fit_ms = ms_since(start);
  if (!fitted) {
    result->error = fitted.error();
    return result;
  }
  result->fitted = std::move(fitted.value());
  start = std::chrono::steady_clock::now();
  PackSettings pack_settings = settings.pack;
  pack_settings.source_name = clip.source.filename().string();
  Result<std::vector<uint8_t>> packed = pack(result->fitted, pack_settings);
  if (!packed) {
    result->error = packed.error();
    return result;
  }
  result->stream = std::move(packed.value());
  Result<StreamView> view = StreamView::open(result->stream, "fitted stream");
  result->pack_ms = ms_since(start);
  if (!view) {
    result->error = view.error();
    return result;
  }
  result->view = std::move(view.value());
  start = std::chrono::steady_clock::now();
  Result<ClipMeasurement> measured = measure(clip.skeleton, clip.clip, result->view);
  result->measure_ms = ms_since(start);
  if (!measured) {
    result->error = measured.error();
    return result;
  }
  result->measurement = std::move(measured.value());
  return result;
}

}  // namespace ks::studio
