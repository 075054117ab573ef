// The Stats panel: what the current settings achieved on the open clip.

#include <imgui.h>

#include <algorithm>

#include "app/studio/panels.h"

namespace ks::studio {

namespace {

void row(const char* name, const char* format, ...) IM_FMTARGS(2);
void row(const char* name, const char* format, ...) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  va_list args;
  va_start(args, format);
  ImGui::TextV(format, args);
  va_end(args);
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
  const StreamSizes& z = r->measurement.sizes;
  const ClipMeasurement& m = r->measurement;
  const FitSettings& fit = r->settings.fit;
  if (ImGui::BeginTable("stats", 2, ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("keys read, last frame  ").x);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    row("raw (float32 T/R/S)", "%zu bytes", z.raw_bytes);
    row("compressed", "%zu bytes  (%.2f : 1)", z.compressed_bytes, z.ratio());
    row("  keys", "%zu bytes, %.2f bits per key", z.key_bytes, z.bits_per_key());
    row("  jump frames", "%zu bytes, %zu frames", z.jump_frame_bytes, r->view.jump_frames().size());
    row("  tables", "%zu bytes", z.table_bytes);
    row("keys", "%zu: T %zu, R %zu, S %zu", z.key_count, z.keys_by_kind[0], z.keys_by_kind[1], z.keys_by_kind[2]);
    const double tracks = 3.0 * static_cast<double>(r->view.bone_count());
    row("keys per track", "%.1f (%.2f per second)", static_cast<double>(z.key_count) / tracks,
        static_cast<double>(z.key_count) / tracks / std::max(0.001f, r->view.duration_s()));
    row("translation error", "max %.4f mm, mean %.4f mm (threshold %.3f)", m.max_track_error[0] * 1000.f,
        m.mean_track_error[0] * 1000.f, fit.translation_error_m * 1000.f);
    row("rotation error", "max %.4f deg, mean %.4f deg (threshold %.3f)", m.max_track_error[1], m.mean_track_error[1],
        fit.rotation_error_deg);
    row("scale error", "max %.5f, mean %.5f (threshold %.4f)", m.max_track_error[2], m.mean_track_error[2],
        fit.scale_error);
    for (size_t d = 0; d < m.distances_m.size(); ++d) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("object space, %g cm", m.distances_m[d] * 100.f);
      ImGui::TableNextColumn();
      ImGui::Text("max %.3f mm, 99th pct %.3f mm", m.max_object_error[d] * 1000.f, m.p99_object_error[d] * 1000.f);
    }
    size_t missed = 0;
    for (const FittedTrack& t : r->fitted.tracks) missed += t.threshold_met ? 0 : 1;
    if (missed > 0) row("tracks over threshold", "%zu (their bit width's floor is above it)", missed);
    row("keys read, last frame", "%llu", static_cast<unsigned long long>(state.keys_read_last_frame));
    row("last seek", "%llu keys, %llu zstd blocks", static_cast<unsigned long long>(state.last_seek_keys),
        static_cast<unsigned long long>(state.last_seek_blocks));
    row("player memory", "%zu bytes", state.player_memory_bytes);
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace ks::studio
