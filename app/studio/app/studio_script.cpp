// StudioApp's unattended modes: the scripted File menu actions and the
// screenshot (StudioOptions::scripted), and the playback and slider-drag
// timing runs (--simulate-play, --simulate-drag).

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/studio/app/studio_app.h"
#include "app/studio/io/png_writer.h"
#include "app/studio/settings/additive_choice.h"
#include "keystream/clip/excerpt.h"
#include "keystream/codec/track_fit.h"

namespace ks::studio {

// Each action goes through the dialog the File menu opens, as a user's
// click on Save (without the question before replacing a file) or on Copy
// as command would.
bool StudioApp::run_script() {
  bool ok = true;
  const auto save = [&](SaveKind kind, const std::filesystem::path& path, const char* what) {
    m_save.open(kind, m_state);
    m_save.set_path(path);
    if (Status s = m_save.save(m_state); !s) {
      std::fprintf(stderr, "keystream-studio: %s: %s\n", what, excerpt(s.error(), kMessageExcerptChars).c_str());
      ok = false;
    } else {
      std::printf("%s: %s\n", what, excerpt(m_save.message(), kMessageExcerptChars).c_str());
    }
  };
  if (m_options.save_stream) save(SaveKind::kStream, *m_options.save_stream, "save stream");
  if (m_options.export_glb) save(SaveKind::kDecodedGlb, *m_options.export_glb, "export decoded glTF");
  if (m_options.print_command) {
    m_command.open(m_state, m_save.stream_path(m_state));
    std::printf("%s\n", m_command.command().text.c_str());
    for (const std::string& caveat : m_command.command().caveats) {
      std::fprintf(stderr, "keystream-studio: the command: %s\n", excerpt(caveat, kMessageExcerptChars).c_str());
    }
  }
  if (m_options.open_choose) {
    m_show_open = true;
    m_open_panel.show(m_state);
    m_open_panel.point_at(*m_options.open_choose);
    m_open_panel.choose_animation(m_options.open_choose_animation);
    if (m_options.open_press) m_open_panel.press_open(m_state);
  }
  std::fflush(stdout);
  return ok;
}

// After --open-choose: what is open, and whether the Open window is; the
// tuning a failed open must keep, and its error as the window shows it. A
// failed open is an error.
bool StudioApp::report_open() const {
  const ImportedClip& clip = *m_state.clip;
  const int bone = m_state.selected_bone;
  std::printf("open: %s [%s] animation %d, frame %g, bone %s; Open window %s\n",
              excerpt(m_state.clip_path.filename().string(), kPathExcerptChars).c_str(),
              excerpt(clip.clip.name).c_str(), clip.animation_index, static_cast<double>(m_state.frame_time),
              excerpt(clip.skeleton.bone_names[static_cast<size_t>(bone)]).c_str(), m_show_open ? "shown" : "closed");
  const FitSettings& fit = m_state.settings.fit;
  std::printf("settings: tolerance %g mm at %g cm, %zu bone overrides\n", static_cast<double>(fit.tolerance_m) * 1e3,
              static_cast<double>(fit.shell_distance_m) * 1e2, fit.bone_tolerances.size());
  if (!m_open_panel.shown_error().empty()) std::printf("Open window error: %s\n", m_open_panel.shown_error().c_str());
  std::fflush(stdout);
  if (m_state.load_error.empty()) return true;
  std::fprintf(stderr, "keystream-studio: open: %s\n", excerpt(m_state.load_error, kMessageExcerptChars).c_str());
  return false;
}

std::optional<int> StudioApp::scripted_frame(int width, int height) {
  if (m_refit_shot_requested) {
    // --show-refitting: this frame was drawn while the refit ran with a
    // track fitted (the progress bar has something to show), or the refit
    // is still starting; a fit that ends before being caught fails.
    if (m_state.refit.running && m_state.refit.pass_tracks_done > 0) {
      if (Status s = write_framebuffer_png(*m_options.screenshot, width, height); !s) {
        std::fprintf(stderr, "keystream-studio: %s\n", excerpt(s.error(), kMessageExcerptChars).c_str());
        return 1;
      }
      std::printf("refitting: pass %u, %u / %u tracks\n", m_state.refit.pass, m_state.refit.pass_tracks_done,
                  m_state.refit.pass_tracks);
      return 0;
    }
    if (!m_state.fitting && !m_state.refit_requested) {
      std::fprintf(stderr, "keystream-studio: --show-refitting: the refit ended before a frame showed it\n");
      return 1;
    }
    return std::nullopt;
  }
  // Wait for the fit (and --show-rd's sweep), then give ImGui a few frames to size its windows.
  const bool sweeping = m_rd_panel.visible && m_rd_worker.busy();
  const bool done = !m_state.fitting && m_state.current_result() != nullptr && !m_state.refit_requested && !sweeping &&
                    !set_busy();
  if (!done && m_state.result && !m_state.result->error.empty() && !m_state.fitting) {
    std::fprintf(stderr, "keystream-studio: %s: %s\n", excerpt(m_options.clip.string(), kPathExcerptChars).c_str(),
                 excerpt(m_state.result->error, kMessageExcerptChars).c_str());
    return 1;
  }
  m_settled_frames = done ? m_settled_frames + 1 : 0;
  if (!done) {
    m_worker.wait_idle();
    if (m_rd_panel.visible) m_rd_worker.wait_idle();
    if (!m_set.empty()) m_set.wait_idle();
    return std::nullopt;
  }
  if (m_settled_frames < 3) return std::nullopt;
  if (!m_script_ran) {
    m_script_ran = true;
    const bool set_action = m_options.save_tolerances || m_options.save_all || m_options.print_set_command;
    const bool any_action =
        m_options.save_stream || m_options.export_glb || m_options.print_command || m_options.open_choose || set_action;
    if (any_action) m_script_ok = run_script();
    if (set_action && m_set.empty()) {
      std::fprintf(stderr, "keystream-studio: --save-all, --save-tolerances and --print-set-command need a set open "
                           "(a folder, several files or a file of several animations)\n");
      m_script_ok = false;
    } else if (set_action) {
      m_script_ok = run_set_script() && m_script_ok;
    }
    // Frames for the dialogs opened to settle (and a clip opened to load and
    // fit), or for the menu to be clicked open.
    if ((any_action && m_options.screenshot) || m_options.open_choose || m_options.show_file_menu) {
      m_settled_frames = 0;
      return std::nullopt;
    }
    if (!m_options.screenshot) return m_script_ok ? 0 : 1;
  }
  // The File menu is pressed at the first of these frames and drawn open by the fifth.
  if (m_settled_frames < (m_options.show_file_menu ? 5 : 3)) return std::nullopt;
  if (m_options.rd_click && m_rd_click_phase < 3) {
    // --rd-click: press and release on the row, a frame each; the click asks for a refit, waited for above.
    if (m_rd_click_phase == 0) {
      const std::optional<ImVec2> at = m_rd_panel.row_center(*m_options.rd_click);
      if (!at) {
        std::fprintf(stderr, "keystream-studio: --rd-click: the sweep has no point %zu\n", *m_options.rd_click);
        return 1;
      }
      m_rd_click_at = *at;
    }
    ++m_rd_click_phase;
    m_settled_frames = 0;
    return std::nullopt;
  }
  if (m_options.show_refitting) {
    m_state.settings.fit.tolerance_m *= 0.5f;
    m_state.refit_requested = true;
    m_refit_shot_requested = true;
    return std::nullopt;
  }
  if (m_options.open_choose && !report_open()) m_script_ok = false;
  if (!m_options.screenshot) return m_script_ok ? 0 : 1;
  for (const ViewRect& view : m_viewport->view_rects()) {
    std::printf("view %s %d %d %d %d\n", view.name.c_str(), view.x, view.y, view.width, view.height);
  }
  // An additive clip as Stats names it, and what the viewport draws of it.
  if (const std::string additive = additive_label(m_state.clip->clip.additive_base); !additive.empty()) {
    std::printf("clip %s (errors on the composed pose), viewport %s\n", excerpt(additive, 200).c_str(),
                m_viewport->layer_alone() ? "layer alone on the bind pose" : "composed on the base");
  }
  // What the Bones panel shows of the selection (deep rigs, the filter).
  const BoneTreeReport& bones = m_bone_tree.report();
  std::printf("bones %zu rows, indent %.1f px, selected %s row %d, %s, name %s\n", bones.rows,
              static_cast<double>(bones.indent_step),
              excerpt(m_state.clip->skeleton.bone_names[static_cast<size_t>(m_state.selected_bone)], 80).c_str(),
              bones.selected_row, bones.selected_in_view ? "in view" : "not in view",
              bones.selected_name_fits ? "fits" : "cut");
  // The Bones panel's Curves group, when the clip has scalar tracks (morph weights, user curves).
  if (!m_state.clip->clip.scalars.empty()) {
    const int scalar = m_state.selected_scalar;
    const std::string name =
        scalar >= 0 ? excerpt(m_state.clip->clip.scalars[static_cast<size_t>(scalar)].name, 80) : "none";
    std::printf("curve tracks %zu rows, selected %s row %d, %s\n", bones.curve_rows, name.c_str(),
                bones.selected_curve_row, bones.selected_curve_in_view ? "in view" : "not in view");
  }
  if (!m_curves.shown_track().empty()) std::printf("curves track %s\n", m_curves.shown_track().c_str());
  // Its curve, and the source's keys the plots mark (a keyed glTF track; none for a sampled one).
  if (!m_curves.curve_report().empty()) std::printf("curves curve: %s\n", m_curves.curve_report().c_str());
  report_scalar_values();
  if (!m_curves.report().empty()) std::printf("curves %s\n", excerpt(m_curves.report(), kMessageExcerptChars).c_str());
  // Where the Curves group and the plots are, for the tests to look at them in the PNG.
  std::vector<ScreenRect> rects = m_curves.plot_rects();
  if (!bones.curve_group.name.empty()) rects.push_back(bones.curve_group);
  if (m_curves.tab_shown()) {
    rects.insert(rects.end(), m_set_panel.rects().begin(), m_set_panel.rects().end());
  }
  for (const ScreenRect& rect : rects) {
    std::printf("rect %s %d %d %d %d\n", rect.name.c_str(), rect.x, rect.y, rect.width, rect.height);
  }
  if (!m_rd_panel.report().empty()) std::printf("%s\n", excerpt(m_rd_panel.report(), kMessageExcerptChars).c_str());
  if (m_curves.tab_shown()) std::printf("%s\n", excerpt(m_set_panel.report(), kMessageExcerptChars).c_str());
  report_overflowing_panels();
  if (const FitResult* r = m_state.current_result()) {
    // The refit's cost as the Settings panel shows it (issue 17: 01_03 within 0.5 s).
    std::printf("fit %.1f ms (%u rounds), pack %.1f ms, measure %.1f ms, total %.1f ms\n", r->fit_ms, r->fitted.rounds,
                r->pack_ms, r->measure_ms, r->fit_ms + r->pack_ms + r->measure_ms);
  }
  std::fflush(stdout);
  if (Status s = write_framebuffer_png(*m_options.screenshot, width, height); !s) {
    std::fprintf(stderr, "keystream-studio: %s\n", excerpt(s.error(), kMessageExcerptChars).c_str());
    return 1;
  }
  return m_script_ok ? 0 : 1;
}

// The Curves panel plots a scalar track's decoded curve from its fitted
// keys (evaluate_fitted), which promises the player's values bit for bit:
// "scalar values at frame F: player and curves differ by at most D (N tracks)".
void StudioApp::report_scalar_values() const {
  const FitResult* r = m_state.current_result();
  if (r == nullptr || r->fitted.scalars.empty() || !m_player || m_player_result.get() != r) return;
  float largest = 0.f;
  for (size_t s = 0; s < r->fitted.scalars.size(); ++s) {
    float plotted[4];
    evaluate_fitted(r->fitted.tracks[r->fitted.bone_track_count() + s], m_state.frame_time, plotted);
    for (uint32_t c = 0; c < r->fitted.scalars[s].components; ++c) {
      largest = std::max(largest, std::fabs(plotted[c] - m_scalar_values[m_scalar_offsets[s] + c]));
    }
  }
  std::printf("scalar values at frame %g: player and curves differ by at most %g (%zu tracks)\n",
              static_cast<double>(m_state.frame_time), static_cast<double>(largest), r->fitted.scalars.size());
}

// Each panel whose contents reached past its right edge last frame (text or
// controls cut off there, unless scrolled to): "overflow PANEL by N px", or
// "overflow none". ImGui keeps the extent in its internal window state.
void StudioApp::report_overflowing_panels() const {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  bool any = false;
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->WasActive || w->Hidden || w->Collapsed || (w->Flags & ImGuiWindowFlags_ChildWindow) != 0) continue;
    if ((w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup | ImGuiWindowFlags_MenuBar)) != 0) continue;
    const float inner = w->ContentRegionRect.GetWidth();
    if (w->ContentSize.x > inner + 1.f) {
      std::printf("overflow %s by %.0f px\n", excerpt(w->Name).c_str(), static_cast<double>(w->ContentSize.x - inner));
      any = true;
    }
  }
  if (!any) std::printf("overflow none\n");
}

namespace {

// Median, smallest, largest and 99th percentile of `values` (zeros when empty).
struct Spread {
  double median = 0.0, min = 0.0, max = 0.0, p99 = 0.0;
};
Spread spread(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return {values[values.size() / 2], values.front(), values.back(),
          values[std::min(values.size() - 1, values.size() * 99 / 100)]};
}

}  // namespace

// Plays the clip (looping) and records frame times and the viewport's part
// of them. True when the time is up.
bool StudioApp::simulate_play(double now, double frame_ms, double viewport_ms) {
  const bool refit = m_options.refit_tolerance_mm.has_value();
  if (m_play_start < 0.0) {
    // Start after the first fit (and the set's, if one is open).
    if (m_state.fitting || m_state.current_result() == nullptr || (refit && set_busy())) return false;
    m_play_start = now;
    m_state.playing = true;
    m_state.looping = true;
    if (refit) {
      // As the Settings slider would: the clip, and every clip of a set, refit behind the playing view.
      m_state.settings.fit.tolerance_m = *m_options.refit_tolerance_mm * 1e-3f;
      m_state.refit_requested = true;
      m_refit_start = now;
    }
    return false;
  }
  m_frame_ms.push_back(frame_ms);
  m_viewport_ms.push_back(viewport_ms);
  m_keys_per_frame.push_back(static_cast<double>(m_state.keys_read_last_frame));
  if (refit && m_refit_end < 0.0) {
    m_refit_frame_ms.push_back(frame_ms);
    const FitResult* r = m_state.current_result();
    const bool clip_done = !m_state.fitting && r != nullptr && r->settings == m_state.settings;
    if (m_refit_frame_ms.size() > 1 && clip_done && !set_busy()) m_refit_end = now;
  }
  const double t = now - m_play_start;
  if (t < m_options.play_seconds || (refit && m_refit_end < 0.0)) return false;
  const Spread frame = spread(m_frame_ms), viewport = spread(m_viewport_ms), keys = spread(m_keys_per_frame);
  const ImportedClip& clip = *m_state.clip;
  std::printf(
      "play %.1f s on %s (%zu bones, %zu mesh vertices): %zu frames, frame time median %.1f ms (%.1f-%.1f), "
      "viewport median %.1f ms (%.1f-%.1f), keys read per frame median %.0f (%.0f-%.0f)\n",
      t, m_state.clip_path.filename().string().c_str(), clip.skeleton.bone_count(),
      clip.mesh ? clip.mesh->vertex_count() : size_t{0}, m_frame_ms.size(), frame.median, frame.min, frame.max,
      viewport.median, viewport.min, viewport.max, keys.median, keys.min, keys.max);
  if (refit) {
    const Spread spent = spread(m_refit_frame_ms);
    const std::string set = m_set.empty() ? std::string("no set")
                                          : "a set of " + std::to_string(m_set_view.progress.rows) + " clips on " +
                                                std::to_string(m_set.workers()) + " worker threads";
    const auto slow = std::count_if(m_refit_frame_ms.begin(), m_refit_frame_ms.end(), [](double ms) { return ms > 50.0; });
    std::printf("refit at %g mm: the clip and %s in %.2f s, %zu frames drawn meanwhile, frame time median %.1f ms, "
                "99th percentile %.1f ms, max %.1f ms, %td over 50 ms\n",
                static_cast<double>(*m_options.refit_tolerance_mm), set.c_str(), m_refit_end - m_refit_start,
                m_refit_frame_ms.size(), spent.median, spent.p99, spent.max, slow);
    if (!m_set.empty()) std::printf("%s\n", excerpt(m_set_panel.report(), kMessageExcerptChars).c_str());
  }
  // What the UI asks the rasteriser for, window by window (the last frame):
  // with software GL its triangles and their area are most of a frame.
  if (const ImDrawData* data = ImGui::GetDrawData(); data != nullptr) {
    std::printf("draw lists: %d vertices, %d indices;", data->TotalVtxCount, data->TotalIdxCount);
    for (int i = 0; i < data->CmdListsCount; ++i) {
      const ImDrawList* list = data->CmdLists[i];
      if (list->VtxBuffer.Size < 1000) continue;
      std::printf(" %s %d", list->_OwnerName != nullptr ? excerpt(list->_OwnerName).c_str() : "?",
                  list->VtxBuffer.Size);
    }
    std::printf("\n");
  }
  return true;
}

// Moves the tolerance as a slider drag would, once a frame, and records
// frame times while fits run behind. True when the time is up.
bool StudioApp::simulate_drag(double now, double frame_ms) {
  if (m_drag_start < 0.0) {
    if (m_state.fitting || m_state.current_result() == nullptr) return false;  // start after the first fit
    m_drag_start = now;
  } else {
    m_frame_ms.push_back(frame_ms);
  }
  const double t = now - m_drag_start;
  m_state.settings.fit.tolerance_m = static_cast<float>(0.0001 * (1.0 + 0.8 * std::sin(3.0 * t)));
  m_state.refit_requested = true;
  if (m_state.result && (m_generations_seen.empty() || m_generations_seen.back() != m_state.result->generation)) {
    m_generations_seen.push_back(m_state.result->generation);
  }
  if (t < m_options.drag_seconds) return false;
  const Spread frame = spread(m_frame_ms);
  std::printf(
      "drag %.1f s on %s: %zu frames, frame time median %.1f ms, 99th percentile %.1f ms, max %.1f ms; "
      "%zu fits finished (last fit %.0f ms)\n",
      t, m_state.clip_path.filename().string().c_str(), m_frame_ms.size(), frame.median, frame.p99, frame.max,
      m_generations_seen.size(), m_state.result ? m_state.result->fit_ms : 0.0);
  return true;
}

}  // namespace ks::studio
