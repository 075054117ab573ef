#include "app/studio/panels/timeline_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/studio/panels/flow_layout.h"
#include "app/studio/plots/plot_widget.h"
#include "keystream/runtime/key_cache.h"
#include "keystream/runtime/player.h"

namespace ks::studio {

namespace {

constexpr float kSeekBarHeight = 44.f;       // px, the frame labels included, when the window has room
constexpr float kLeastSeekBarHeight = 30.f;  // px: a short window keeps the readout below in view
constexpr float kInset = 7.f;                // px from the bar's ends to frames 0 and last: room for the playhead
constexpr float kPxPerBin = 3.f;             // histogram bar width, px, on a long clip
constexpr float kMinMinorTickPx = 5.f;       // minor ticks closer than this are left out

// The playhead is the curves' cursor colour; jump frames are orange, apart
// from everything else on the bar; the key histogram stays in the background.
const ImU32 kBackground = plot_rgba(22, 24, 29);
const ImU32 kBorder = plot_rgba(255, 255, 255, 70);
const ImU32 kHistogramColor = plot_rgba(80, 120, 175, 160);
const ImU32 kHistogramClippedColor = plot_rgba(170, 205, 255);
const ImU32 kFrameTickColor = plot_rgba(255, 255, 255, 90);
const ImU32 kJumpColor = plot_rgba(255, 150, 40);
const ImU32 kHoverColor = plot_rgba(255, 255, 255, 90);
const ImU32 kPlayheadColor = plot_rgba(120, 255, 140);

enum class Icon { kFirst, kPrevious, kPlay, kPause, kNext, kLast };

// Media-player glyphs, drawn: the default font has none.
void draw_icon(ImDrawList* draw, ImVec2 lo, ImVec2 hi, Icon icon, ImU32 color) {
  const ImVec2 c(0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y));
  const float s = std::round(0.27f * (hi.y - lo.y));    // half the glyph height
  const float w = std::round(1.1f * s);                 // triangle width
  const float b = std::max(2.f, std::round(0.4f * s));  // bar width
  // Points clockwise on screen, as ImGui's anti-aliased fill wants them.
  auto left = [&](float x) {
    draw->AddTriangleFilled(ImVec2(x, c.y), ImVec2(x + w, c.y - s), ImVec2(x + w, c.y + s), color);
  };
  auto right = [&](float x) {
    draw->AddTriangleFilled(ImVec2(x + w, c.y), ImVec2(x, c.y + s), ImVec2(x, c.y - s), color);
  };
  auto bar = [&](float x) { draw->AddRectFilled(ImVec2(x, c.y - s), ImVec2(x + b, c.y + s), color); };
  switch (icon) {
    case Icon::kFirst: {
      const float x = std::round(c.x - 0.5f * (b + 2.f * w));
      bar(x);
      left(x + b);
      left(x + b + w);
      break;
    }
    case Icon::kPrevious: {
      const float x = std::round(c.x - 0.5f * (b + w));
      bar(x);
      left(x + b);
      break;
    }
    case Icon::kPlay: right(std::round(c.x - 0.45f * w)); break;
    case Icon::kPause:
      bar(std::round(c.x - b - 0.2f * s));
      bar(std::round(c.x + 0.2f * s));
      break;
    case Icon::kNext: {
      const float x = std::round(c.x - 0.5f * (b + w));
      right(x);
      bar(x + w);
      break;
    }
    case Icon::kLast: {
      const float x = std::round(c.x - 0.5f * (b + 2.f * w));
      right(x);
      right(x + w);
      bar(x + 2.f * w);
      break;
    }
  }
}

bool icon_button(const char* id, Icon icon, const char* tooltip) {
  const float height = ImGui::GetFrameHeight();
  const bool pressed = ImGui::Button(id, ImVec2(std::round(1.6f * height), height));
  draw_icon(ImGui::GetWindowDrawList(), ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), icon,
            ImGui::GetColorU32(ImGuiCol_Text));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  return pressed;
}

const char* plural(uint64_t n) {
  return n == 1 ? "" : "s";
}

}  // namespace

void TimelinePanel::draw(StudioState& state) {
  ImGui::SetNextWindowSize(ImVec2(1000.f, 150.f), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Timeline")) {
    m_scrubbing = false;
    ImGui::End();
    return;
  }
  if (!state.clip || state.clip->clip.frame_count == 0) {
    m_scrubbing = false;
    ImGui::TextDisabled("No clip open.");
    ImGui::End();
    return;
  }
  const RawClip& clip = state.clip->clip;
  const FitResult* result = state.current_result();
  // While scrubbing, the time follows the mouse before anything is drawn, so
  // the time shown above the bar is the playhead's, not the last frame's.
  if (m_scrubbing && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
    m_axis.last_frame = clip.frame_count - 1;
    state.frame_time = snap_to_frame(x_to_frame(m_axis, ImGui::GetIO().MousePos.x), m_axis.last_frame);
  }
  draw_transport(state, clip.frame_count - 1, clip.sample_rate_hz);
  draw_seek_bar(state, result);
  if (result != nullptr) {
    draw_readout(state, *result);
  } else {
    ImGui::TextDisabled(state.fitting ? "fitting..." : "no fit of this clip");
  }
  ImGui::End();
}

void TimelinePanel::draw_transport(StudioState& state, uint32_t last_frame, float sample_rate_hz) {
  const float last = static_cast<float>(last_frame);
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  // Stepping pauses: a step while playing would be overtaken at once.
  if (icon_button("##first", Icon::kFirst, "First frame")) {
    state.frame_time = 0.f;
    state.playing = false;
  }
  ImGui::SameLine(0.f, 2.f);
  if (icon_button("##previous", Icon::kPrevious, "Previous frame (Left)")) {
    state.frame_time = std::max(0.f, std::ceil(state.frame_time) - 1.f);
    state.playing = false;
  }
  ImGui::SameLine(0.f, 2.f);
  if (icon_button("##play", state.playing ? Icon::kPause : Icon::kPlay,
                  state.playing ? "Pause (Space)" : "Play (Space)")) {
    state.playing = !state.playing;
    // Play at the end of a clip that does not loop starts it again.
    if (state.playing && !state.looping && state.frame_time >= last) state.frame_time = 0.f;
  }
  ImGui::SameLine(0.f, 2.f);
  if (icon_button("##next", Icon::kNext, "Next frame (Right)")) {
    state.frame_time = std::min(last, std::floor(state.frame_time) + 1.f);
    state.playing = false;
  }
  ImGui::SameLine(0.f, 2.f);
  if (icon_button("##last", Icon::kLast, "Last frame")) {
    state.frame_time = last;
    state.playing = false;
  }

  ImGui::SameLine(0.f, 3.f * spacing);
  ImGui::Checkbox("Loop", &state.looping);
  ImGui::SameLine(0.f, 2.f * spacing);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("speed");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("0.00x").x * 3.f);
  ImGui::SliderFloat("##speed", &state.speed, 0.1f, 4.f, "%.2fx",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Playback speed, 0.1x to 4x (Ctrl+click to type)");
  ImGui::SameLine(0.f, 2.f);
  if (ImGui::Button("1x")) state.speed = 1.f;

  // The readouts move to a second line when the window is narrow (flow_layout.h).
  const float rate = sample_rate_hz > 0.f ? sample_rate_hz : 1.f;
  char text[64];
  std::snprintf(text, sizeof text, "t = %.3f s / %.3f s", static_cast<double>(state.frame_time / rate),
                static_cast<double>(last / rate));
  same_line_if_fits(ImGui::CalcTextSize(text).x, 3.f * spacing);
  ImGui::TextUnformatted(text);
  std::snprintf(text, sizeof text, "frame %.1f / %u", static_cast<double>(state.frame_time), last_frame);
  same_line_if_fits(ImGui::CalcTextSize(text).x, 2.f * spacing);
  ImGui::TextUnformatted(text);
  std::snprintf(text, sizeof text, "%g fps", static_cast<double>(sample_rate_hz));
  same_line_if_fits(ImGui::CalcTextSize(text).x, 2.f * spacing);
  ImGui::TextDisabled("%s", text);
}

void TimelinePanel::update_histogram(const StudioState& state, size_t bin_count) {
  const std::shared_ptr<const FitResult>& result = state.result;  // the current result
  const bool same_result = !m_binned_result.expired() && !m_binned_result.owner_before(result) &&
                           !result.owner_before(m_binned_result) && m_binned_generation == result->generation;
  if (same_result && m_bins.size() == bin_count) return;
  m_binned_result = result;
  m_binned_generation = result->generation;
  m_bins.resize(bin_count);
  bin_key_frames(result->fitted.tracks, state.clip->clip.frame_count, m_bins);
  m_full_scale = histogram_full_scale(m_bins);
}

void TimelinePanel::draw_seek_bar(StudioState& state, const FitResult* result) {
  const RawClip& clip = state.clip->clip;
  const uint32_t last = clip.frame_count - 1;
  const float rate = clip.sample_rate_hz > 0.f ? clip.sample_rate_hz : 1.f;
  const ImGuiIO& io = ImGui::GetIO();
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 120.f);
  // A short window (1280x800 scales the layout down) shortens the bar before
  // it pushes the readout's line out of view.
  const float room = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing();
  const float height = std::clamp(room, kLeastSeekBarHeight, kSeekBarHeight);
  ImGui::InvisibleButton("seek bar", ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 lo(origin.x, origin.y);
  const ImVec2 hi(origin.x + width, origin.y + height - line - 2.f);  // the labels go below
  const FrameAxis axis{origin.x + kInset, origin.x + width - kInset, last};

  // Scrub before drawing, so the playhead shows where it went this frame.
  if (ImGui::IsItemActivated()) {
    m_resume_after_scrub = state.playing;
    state.playing = false;
  }
  if (ImGui::IsItemActive()) state.frame_time = snap_to_frame(x_to_frame(axis, io.MousePos.x), last);
  if (ImGui::IsItemDeactivated()) {
    if (m_resume_after_scrub) state.playing = true;
    m_resume_after_scrub = false;
  }
  m_scrubbing = ImGui::IsItemActive();
  m_axis = axis;

  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(lo, hi, kBackground, 3.f);

  // Where the keys fall, bottom-aligned under the ticks.
  if (result != nullptr) {
    update_histogram(state, key_bin_count(axis.x1 - axis.x0, kPxPerBin, clip.frame_count));
    const float full_height = hi.y - lo.y - 6.f;
    for (size_t b = 0; b < m_bins.size() && m_full_scale > 0; ++b) {
      if (m_bins[b] == 0) continue;
      const float first = static_cast<float>(bin_first_frame(b, clip.frame_count, m_bins.size()));
      const float end = static_cast<float>(bin_first_frame(b + 1, clip.frame_count, m_bins.size()));
      const float x0 = std::max(frame_to_x(axis, first - 0.5f), lo.x + 1.f);
      float x1 = std::min(frame_to_x(axis, end - 0.5f), hi.x - 1.f);
      if (x1 - x0 >= 3.f) x1 -= 1.f;  // a gap between bars wide enough to show one
      const float fraction = std::min(1.f, static_cast<float>(m_bins[b]) / static_cast<float>(m_full_scale));
      const float top = hi.y - std::max(1.f, std::round(fraction * full_height));
      draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, hi.y), kHistogramColor);
      // More keys than the scale: a bright cap says the bar is cut short.
      if (m_bins[b] > m_full_scale) draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, top + 2.f), kHistogramClippedColor);
    }
  }

  // Frame ticks along the bottom edge, labelled below it.
  char text[32];
  std::snprintf(text, sizeof text, "%u", last);
  const uint32_t step = frame_label_step(axis, ImGui::CalcTextSize(text).x + 14.f);
  const uint32_t minor = frame_minor_step(step);
  const float px_per_frame = last > 0 ? (axis.x1 - axis.x0) / static_cast<float>(last) : 0.f;
  if (minor > 0 && static_cast<float>(minor) * px_per_frame >= kMinMinorTickPx) {
    for (uint64_t f = 0; f <= last; f += minor) {
      const float x = std::round(frame_to_x(axis, static_cast<float>(f)));
      draw->AddLine(ImVec2(x, hi.y - 3.f), ImVec2(x, hi.y), kFrameTickColor);
    }
  }
  const ImU32 label_color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  float last_label_right = -std::numeric_limits<float>::infinity();
  for (uint64_t f = 0; f <= last; f += step) {
    const float x = std::round(frame_to_x(axis, static_cast<float>(f)));
    draw->AddLine(ImVec2(x, hi.y - 7.f), ImVec2(x, hi.y), kFrameTickColor);
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(f));
    const float w = ImGui::CalcTextSize(text).x;
    const float left = std::clamp(x - 0.5f * w, lo.x, hi.x - w);
    if (left < last_label_right + 6.f) continue;
    draw->AddText(ImVec2(left, hi.y + 1.f), label_color, text);
    last_label_right = left + w;
  }

  // One tick per jump frame, from this result: a new jump interval moves them.
  if (result != nullptr) {
    float last_x = -std::numeric_limits<float>::infinity();
    for (const JumpFrame& jump : result->view.jump_frames()) {
      const float x = std::round(frame_to_x(axis, static_cast<float>(jump.frame)));
      if (x < last_x + 2.f) continue;  // ticks closer than their width would merge anyway
      draw->AddLine(ImVec2(x, lo.y + 2.f), ImVec2(x, hi.y), kJumpColor, 2.f);
      last_x = x;
    }
  }

  const float hovered_frame = snap_to_frame(x_to_frame(axis, io.MousePos.x), last);
  if (hovered && !ImGui::IsItemActive()) {
    const float x = std::round(frame_to_x(axis, hovered_frame));
    draw->AddLine(ImVec2(x, lo.y), ImVec2(x, hi.y), kHoverColor);
  }

  const float playhead = std::round(frame_to_x(axis, std::clamp(state.frame_time, 0.f, static_cast<float>(last))));
  draw->AddLine(ImVec2(playhead, lo.y), ImVec2(playhead, hi.y), kPlayheadColor, 2.f);
  draw->AddTriangleFilled(ImVec2(playhead - 6.f, lo.y), ImVec2(playhead + 6.f, lo.y), ImVec2(playhead, lo.y + 7.f),
                          kPlayheadColor);
  draw->AddRect(lo, hi, kBorder, 3.f);

  if (hovered && !ImGui::IsItemActive()) {
    const uint32_t frame = static_cast<uint32_t>(hovered_frame);
    ImGui::BeginTooltip();
    ImGui::Text("frame %u  (%.3f s)", frame, static_cast<double>(hovered_frame / rate));
    if (result != nullptr) {
      if (const JumpFrame* jump = jump_frame_at_or_before(result->view.jump_frames(), hovered_frame)) {
        ImGui::Text("jump frame at or before: %u (%.3f s)", jump->frame,
                    static_cast<double>(static_cast<float>(jump->frame) / rate));
      } else {
        ImGui::Text("no jump frame at or before: a seek back here restarts from frame 0");
      }
      if (!m_bins.empty()) {
        const size_t b = key_bin_of_frame(frame, clip.frame_count, m_bins.size());
        const uint32_t first = bin_first_frame(b, clip.frame_count, m_bins.size());
        const uint32_t end = bin_first_frame(b + 1, clip.frame_count, m_bins.size());
        if (end - first == 1) {
          ImGui::Text("%u key%s at this frame", m_bins[b], plural(m_bins[b]));
        } else {
          ImGui::Text("%u key%s in frames %u-%u", m_bins[b], plural(m_bins[b]), first, end - 1);
        }
      }
    }
    ImGui::TextDisabled("click or drag to seek");
    ImGui::EndTooltip();
  }
}

void TimelinePanel::draw_readout(const StudioState& state, const FitResult& result) {
  const StreamView& view = result.view;
  if (state.playing) {
    const uint64_t keys = state.keys_read_last_frame;
    ImGui::Text("playing: %llu key%s read this frame", static_cast<unsigned long long>(keys), plural(keys));
  } else if (state.last_seek_frame >= 0.f) {
    const uint64_t keys = state.last_seek_keys;
    // A zstd key stream is decompressed once, when the player is made: a
    // seek reads it as it reads a plain one.
    const char* cost = view.key_stream_compressed() ? "zstd key stream, decompressed on load" : "plain key stream";
    // The seek's own frame is named: while scrubbing, the playhead is already
    // a frame ahead of the last time the player sampled.
    const double target = state.last_seek_frame;
    const JumpFrame* jump =
        state.last_seek_restarted ? nullptr : jump_frame_at_or_before(view.jump_frames(), state.last_seek_frame);
    if (state.last_seek_cached) {
      // The player decoded the clip's keys once, when it was made.
      ImGui::Text("last seek: frame %.1f, from the key cache", target);
    } else if (jump != nullptr) {
      ImGui::Text("last seek: %llu key%s read from the jump frame at %u to reach frame %.1f (%s)",
                  static_cast<unsigned long long>(keys), plural(keys), jump->frame, target, cost);
    } else {
      ImGui::Text("last seek: %llu key%s read from frame 0 (restart) to reach frame %.1f (%s)",
                  static_cast<unsigned long long>(keys), plural(keys), target, cost);
    }
  } else {
    const uint64_t keys = state.keys_read_last_frame;
    ImGui::Text("paused: %llu key%s read this frame", static_cast<unsigned long long>(keys), plural(keys));
  }
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  const uint32_t interval = view.jump_interval_frames();
  if (interval == 0 && KeyCache::bytes_for(view) <= Player::kDefaultKeyCacheBytes) {
    // --jump-interval auto gives a clip the player caches none: it seeks from the cache.
    ImGui::Text("jump frames: none (seeks use the key cache)");
  } else if (interval == 0) {
    ImGui::Text("jump frames: none (a seek back restarts at frame 0)");
  } else if (view.jump_frames().empty()) {
    ImGui::Text("jump frames: none (the clip is shorter than the %u-frame interval)", interval);
  } else {
    ImGui::Text("jump frames: %zu every %u frames (%.2f s)", view.jump_frames().size(), interval,
                static_cast<double>(static_cast<float>(interval) / view.sample_rate_hz()));
  }
  if (state.fitting) {
    ImGui::SameLine();
    ImGui::TextDisabled("(refitting...)");
  }
}

}  // namespace ks::studio
