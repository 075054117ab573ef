#pragma once
// StudioState: what every panel reads and edits, owned by the app and only
// touched on the UI thread. The fit result comes from the refit worker and
// is immutable; everything else here is the user's view of it.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/studio/jobs/fit_job.h"
#include "keystream/io/additive_import.h"
#include "keystream/runtime/curve.h"

namespace ks::studio {

struct StudioState {
  // The open clip (null until one loads) and where it came from. `clip` is
  // what is fitted and shown: `imported`, or a copy of it made additive to
  // the base Settings chooses, so that choosing none gives it back.
  std::shared_ptr<const ImportedClip> clip;
  std::shared_ptr<const ImportedClip> imported;
  AdditiveBaseSpec additive;   // what `clip` is additive to; kNone: it is `imported`
  std::string additive_error;  // the last base that could not be used, shown in Settings
  std::filesystem::path clip_path;
  ImportSettings import_settings;  // those the open clip was imported with
  std::string load_error;  // the last open that failed, shown until the next succeeds
  bool warnings_dismissed = false;  // the open clip's import warnings, shown in the menu bar until dismissed
  std::vector<std::filesystem::path> recent_files;  // newest first

  // The settings the user is editing, and the newest finished fit (possibly
  // of older settings, or of the previous clip: compare result->clip).
  CodecSettings settings;
  std::shared_ptr<const FitResult> result;
  bool fitting = false;
  RefitStatus refit;  // the running fit's progress, when `fitting`

  // Selection, shared by the bone tree, the curves and the viewport.
  int selected_bone = 0;
  // The user (a click, --select, the bone of the same name in the file
  // opened before) chose selected_bone; until then the first fit of a clip
  // selects its moving bone with the largest error, the one worth looking at.
  bool selection_chosen = false;
  TrackKind selected_kind = TrackKind::kRotation;
  // The scalar track (morph weight or user curve, by index in the clip) the
  // Curves panel shows instead of the bone's track; -1 shows the bone's.
  int selected_scalar = -1;

  // The Bones panel's override editor: the values typed for the selected
  // bone, filled from its tolerance whenever the selection moves to another.
  struct OverrideEdit {
    int bone = -1;  // the bone the values were filled for
    float tolerance_mm = 0.1f;
    float shell_distance_cm = 3.f;
  } override_edit;
  // The same for the selected scalar track's precision.
  struct PrecisionEdit {
    int track = -1;  // the scalar track the value was filled for
    float precision = 0.f;
  } precision_edit;

  // The Settings panel's additive-base editor: the choice shown (-1: the
  // one of `additive`; set while a file is typed but not yet applied) and the file typed.
  struct AdditiveEdit {
    int choice = -1;
    std::string file;
  } additive_edit;

  // Time, in frames (fractional), and playback.
  float frame_time = 0.f;
  bool playing = false;
  bool looping = true;
  float speed = 1.f;

  // What the player (decoding the fitted stream at frame_time) did.
  uint64_t keys_read_last_frame = 0;  // keys decoded for the last frame drawn
  uint64_t last_seek_keys = 0;        // keys decoded by the last seek (a jump or a restart)
  float last_seek_frame = -1.f;       // the frame time it went to; < 0 before the first seek
  bool last_seek_restarted = false;   // it replayed from frame 0 rather than from a jump frame
  bool last_seek_cached = false;      // it set the lanes from the player's key cache (no key read)
  size_t player_memory_bytes = 0;
  size_t player_key_cache_bytes = 0;  // of those, the key cache (0: the player reads the stream)

  // Requests the panels make of the app, handled after drawing.
  bool refit_requested = false;                // settings changed
  std::optional<AdditiveBaseSpec> additive_requested;  // another additive base (kNone: none)
  std::filesystem::path open_requested;        // a file to open
  int open_animation = 0;                      // the animation of it to open (glTF), by index
  bool frame_selection_requested = false;      // F: frame the selection in the curves

  /// Selects `bone` (a click in the tree or the viewport): the Curves panel
  /// shows its tracks again rather than a scalar track's.
  void select_bone(int bone) {
    selected_bone = bone;
    selected_scalar = -1;
    selection_chosen = true;
  }

  /// The fit result when it belongs to the open clip, else null.
  const FitResult* current_result() const {
    return result && clip && result->clip == clip && result->error.empty() ? result.get() : nullptr;
  }
};

}  // namespace ks::studio
