#pragma once
// The studio's panels. Each draws one ImGui window from the state and
// records what the user asked for in it (StudioState's *_requested fields);
// the app acts on those after drawing.

#include "app/studio/studio_state.h"

namespace ks::studio {

/// "Settings": thresholds, bit width, range, split rule, jump interval,
/// zstd, reset; the fit's progress and time.
void draw_settings_panel(StudioState& state);
/// "Stats": sizes, ratio, keys, bits per key, errors, object-space error,
/// jump frames, what the player read.
void draw_stats_panel(StudioState& state);
/// "Bones": the hierarchy, each bone's largest error against the thresholds.
void draw_bone_tree_panel(StudioState& state);
/// "Open": path field, folder listing of clips and recent files.
void draw_open_panel(StudioState& state, bool* open);

}  // namespace ks::studio
