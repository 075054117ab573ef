// The Stats panel: what the current settings achieved on the open clip.
// First the promise (each bone's object-space max against its tolerance,
// the bones over it and the floors that stop them), then the bytes, the
// keys and their coding, the local errors, and what the player read.

#include <imgui.h>

#include <algorithm>
#include <cstdarg>
#include <string>

#include "app/studio/panels/panels.h"
#include "app/studio/settings/additive_choice.h"
#include "app/studio/settings/bone_tolerance_edit.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

const ImVec4 kOverColor(1.f, 0.45f, 0.4f, 1.f);
const ImVec4 kMetColor(0.45f, 0.9f, 0.45f, 1.f);

void row(const char* name, const char* format, ...) IM_FMTARGS(2);
void row(const char* name, const char* format, ...) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  va_list args;
  va_start(args, format);
  ImGui::TextWrappedV(format, args);  // a narrow panel wraps the value, never cuts it
  va_end(args);
}

void colored_row(const char* name, const ImVec4& color, const char* format, ...) IM_FMTARGS(3);
void colored_row(const char* name, const ImVec4& color, const char* format, ...) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  va_list args;
  va_start(args, format);
  ImGui::TextWrappedV(format, args);
  va_end(args);
  ImGui::PopStyleColor();
}

// The object-space rows: the bone nearest (or furthest past) its tolerance,
// how many are over, and the floor of each bone that cannot reach it.
void promise_rows(const FitResult& r) {
  const ClipMeasurement& m = r.measurement;
  const std::vector<std::string>& names = r.fitted.bone_names;
  const size_t bones = std::min({m.bone_error_m.size(), r.bone_tolerance_m.size(), names.size()});
  const bool local = r.settings.fit.error_mode == ErrorMode::kLocal;
  if (bones == 0) return;
  const size_t worst = static_cast<size_t>(std::max(worst_bone(r), 0));
  size_t over = 0;
  for (size_t b = 0; b < bones; ++b) over += m.bone_error_m[b] > r.bone_tolerance_m[b] ? 1 : 0;
  const double percent = 100.0 * static_cast<double>(m.bone_error_m[worst] / r.bone_tolerance_m[worst]);
  colored_row("object-space max", over > 0 ? kOverColor : kMetColor, "%s (%.0f%%)",
              format_error_pair_mm(m.bone_error_m[worst], r.bone_tolerance_m[worst]).c_str(), percent);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "The largest error over the source frames of the bone nearest its tolerance\n"
        "(each bone's virtual vertices at its own shell distance, as decoded)");
  }
  row("  worst bone", "%s, frame %u", excerpt(names[worst], 120).c_str(), m.bone_worst_frame[worst]);
  const FitSettings& fit = r.settings.fit;
  row(local ? "tolerance (unused)" : "tolerance", "%.3g mm at %.3g cm", static_cast<double>(fit.tolerance_m) * 1000.0,
      static_cast<double>(fit.shell_distance_m) * 100.0);
  if (!fit.bone_tolerances.empty()) row("  overrides", "%zu bones", fit.bone_tolerances.size());
  colored_row("bones over", over > 0 ? kOverColor : kMetColor, "%zu of %zu", over, bones);
  for (size_t b = 0; b < r.fitted.bones.size() && b < names.size(); ++b) {
    const BoneFit& bone = r.fitted.bones[b];
    if (bone.met() || !(bone.floor_m > 0.f)) continue;
    colored_row("  floor", kOverColor, "%s: %.3g mm (needs %.3g), frame %u", excerpt(names[b], 120).c_str(),
                static_cast<double>(bone.floor_m) * 1000.0, static_cast<double>(bone.tolerance_m) * 1000.0,
                bone.worst_frame);
  }
}

void size_rows(const FitResult& r) {
  const StreamSizes& z = r.measurement.sizes;
  const double without = static_cast<double>(z.bytes_without_metadata());
  row("stream", "%zu bytes", z.compressed_bytes);
  row("  without metadata", "%zu bytes", z.bytes_without_metadata());
  row("ratio", "%.2f : 1", z.ratio());
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("To float32 T/R/S at every frame (%zu bytes); %.2f : 1 without the metadata", z.raw_bytes,
                      without > 0.0 ? static_cast<double>(z.raw_bytes) / without : 0.0);
  }
  row("  keys", "%zu bytes", z.key_bytes);
  row("bits per key", "%.2f", z.bits_per_key());
  row("  tables", "%zu bytes", z.table_bytes);
  row("  jump frames", "%zu bytes, %zu frames", z.jump_frame_bytes, r.view.jump_frames().size());
  row("  metadata", "%zu bytes", z.metadata_bytes);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Bone names and tolerances: tools read them, an engine may strip them");
  row("tracks by coding", "%zu animated, %zu constant, %zu identity, %zu rest", z.tracks_by_coding[2],
      z.tracks_by_coding[1], z.tracks_by_coding[0], z.tracks_by_coding[3]);
  row("keys", "%zu: T %zu, R %zu, S %zu", z.key_count, z.keys_by_kind[0], z.keys_by_kind[1], z.keys_by_kind[2]);
  const double animated = static_cast<double>(std::max<size_t>(z.tracks_by_coding[2], 1));
  row("keys per track", "%.1f (%.2f per second)", static_cast<double>(z.key_count) / animated,
      static_cast<double>(z.key_count) / animated / static_cast<double>(std::max(0.001f, r.view.duration_s())));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Per animated track");
}

void error_rows(const FitResult& r) {
  const ClipMeasurement& m = r.measurement;
  for (size_t d = 0; d < m.distances_m.size(); ++d) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("object space, %g cm", static_cast<double>(m.distances_m[d]) * 100.0);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("max %.4f, p99 %.4f mm", static_cast<double>(m.max_object_error[d]) * 1000.0,
                       static_cast<double>(m.p99_object_error[d]) * 1000.0);
  }
  row("translation error", "max %.4f, mean %.4f mm", static_cast<double>(m.max_track_error[0]) * 1000.0,
      static_cast<double>(m.mean_track_error[0]) * 1000.0);
  row("rotation error", "max %.4f, mean %.4f deg", static_cast<double>(m.max_track_error[1]),
      static_cast<double>(m.mean_track_error[1]));
  row("scale error", "max %.5f, mean %.5f", static_cast<double>(m.max_track_error[2]),
      static_cast<double>(m.mean_track_error[2]));
  if (r.settings.fit.error_mode == ErrorMode::kLocal) {
    size_t missed = 0;
    for (const FittedTrack& t : r.fitted.tracks) missed += t.threshold_met ? 0 : 1;
    colored_row("tracks over threshold", missed > 0 ? kOverColor : kMetColor, "%zu%s", missed,
                missed > 0 ? " (their coding's floor is above it)" : "");
  }
}

}  // namespace

void draw_stats_panel(StudioState& state) {
  if (!ImGui::Begin("Stats")) {
    ImGui::End();
    return;
  }
  const FitResult* r = state.current_result();
  if (r == nullptr) {
    ImGui::TextDisabled(state.fitting ? "fitting..." : "no fit yet");
    ImGui::End();
    return;
  }
  if (ImGui::BeginTable("stats", 2, ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("keys read, last frame ").x);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    if (const std::string additive = additive_label(r->clip->clip.additive_base); !additive.empty()) {
      row("clip", "%s (errors on the composed pose)", excerpt(additive, 200).c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "The stream holds the layer (its difference to the base); the object-space\n"
            "errors are on the pose composed on the base, the track errors on the layer");
      }
    }
    promise_rows(*r);
    size_rows(*r);
    error_rows(*r);
    row("keys read, last frame", "%llu", static_cast<unsigned long long>(state.keys_read_last_frame));
    if (state.last_seek_cached) {
      row("last seek", "from the key cache");
    } else {
      row("last seek", "%llu keys", static_cast<unsigned long long>(state.last_seek_keys));
    }
    if (state.player_key_cache_bytes > 0) {
      row("player memory", "%zu bytes (key cache %zu)", state.player_memory_bytes, state.player_key_cache_bytes);
    } else {
      row("player memory", "%zu bytes (no key cache)", state.player_memory_bytes);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace ks::studio
