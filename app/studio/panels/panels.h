#pragma once
// The studio's stateless panels (BoneTreePanel, CurvePanel and the others
// with state have headers of their own). Each draws one ImGui window from
// the state and records what the user asked for in it (StudioState's
// *_requested fields); the app acts on those after drawing.

#include "app/studio/app/studio_state.h"

namespace ks::studio {

/// "Settings": the tolerance and shell distance and the per-bone overrides;
/// under "Advanced", local mode and its thresholds, split rule,
/// discontinuity ratio, jump interval, zstd; reset; the fit's progress and time.
void draw_settings_panel(StudioState& state);
/// Settings' additive base: none, first frame, bind pose, an animation of
/// the open file or another file; a choice asks the app for the clip made
/// additive to it (StudioState::additive_requested).
void draw_additive_settings(StudioState& state);
/// "Stats": object-space max against the tolerance, bones over, floors;
/// bytes with and without metadata, bits per key, tracks by coding, keys,
/// errors, what the player read.
void draw_stats_panel(StudioState& state);

}  // namespace ks::studio
