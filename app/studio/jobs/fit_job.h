#pragma once
// FitJob: one run of the codec on the open clip, as the studio shows it. The
// refit worker makes one per settings change; once published it is never
// changed, so panels read it without locks while the next one is fitted.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/fit_progress.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/stream_view.h"

namespace ks::studio {

/// The settings a fit runs with.
struct CodecSettings {
  FitSettings fit;
  PackSettings pack = tool_pack_settings();  // as the command line packs by default
  bool operator==(const CodecSettings&) const = default;
};

/// Where a run_fit is: fitting (its FitProgress says how far), packing and
/// opening the stream, or measuring the decoded stream.
enum class FitStage : uint8_t { kFitting, kPacking, kMeasuring };

/// A run_fit in progress, shared with whoever watches it (the refit worker
/// and, through it, the Settings panel); setting `fit.abandon` stops it.
struct RunProgress {
  FitProgress fit;
  std::atomic<FitStage> stage{FitStage::kFitting};
};

/// What the refit worker is doing (refit_worker.h), for the UI.
struct RefitStatus {
  bool busy = false;     // a request is running or waiting
  bool running = false;  // one is running: the fields below describe it
  FitStage stage = FitStage::kFitting;
  uint32_t pass = 0;  // the fit's passes over tracks started (FitProgress)
  uint32_t pass_tracks = 0;
  uint32_t pass_tracks_done = 0;
  double running_s = 0.0;  // how long it has run
  uint64_t abandoned = 0;  // requests abandoned for newer ones, so far
};

/// What one fit produced. Held through shared_ptr and never moved: `view`
/// borrows `stream`.
struct FitResult {
  uint64_t generation = 0;                   // which request it answers
  std::shared_ptr<const ImportedClip> clip;  // the clip it was fitted on
  CodecSettings settings;
  std::string error;       // non-empty when the fit failed; nothing else is set then
  bool abandoned = false;  // stopped through RunProgress: `error` says so, and no one shows it
  FittedClip fitted;
  std::vector<uint8_t> stream;
  StreamView view;
  /// Per bone, the object-space tolerance E (metres) and shell distance d
  /// (metres) it was fitted to: the fit's own (FittedClip::bones) in
  /// object-space mode; in local mode, which promises no tolerance, the
  /// settings' E and d with their overrides, for reference.
  std::vector<float> bone_tolerance_m;
  std::vector<float> bone_shell_distance_m;
  /// Measured on the decoded stream; bone_error_m and bone_worst_frame are
  /// each bone's object-space error at its own shell distance.
  ClipMeasurement measurement;
  double fit_ms = 0.0;      // fitting
  double pack_ms = 0.0;     // packing and opening the stream
  double measure_ms = 0.0;  // decoding every frame and measuring
};

/// The bone nearest (or furthest past) its tolerance: the largest measured
/// error as a fraction of the bone's tolerance, the first such bone on a
/// tie; -1 when the result measured no bones. With `moving_only`, among the
/// bones with an animated track (a still end bone, an eye, often has the
/// largest error, all of it from its parents, and flat curves), falling back
/// to every bone when none moves.
int worst_bone(const FitResult& result, bool moving_only = false);

/// True when some track of bone `bone` is animated in the fit (false for a
/// bone the result does not hold): a still bone has one pose all clip long.
bool bone_moves(const FitResult& result, size_t bone);

/// Fits, packs, opens and measures `clip` with `settings` (each bone's
/// object-space error at its own shell distance besides the usual ones).
/// `progress`, when given, follows it stage by stage, and its `fit.abandon`
/// stops it at the next track or stage (the result is then `abandoned`).
std::shared_ptr<const FitResult> run_fit(std::shared_ptr<const ImportedClip> clip, const CodecSettings& settings,
                                         uint64_t generation, unsigned threads, RunProgress* progress = nullptr);

/// `previous` (a fit without error) packed and measured again with
/// `settings`, which differ from its own in packing only: the fit is kept.
std::shared_ptr<const FitResult> repack(const FitResult& previous, const CodecSettings& settings,
                                        uint64_t generation, RunProgress* progress = nullptr);

}  // namespace ks::studio
