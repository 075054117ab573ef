#include "app/studio/panels/rd_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/studio/plots/plot_widget.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

const ImU32 kLineColor = plot_rgba(120, 170, 230);
const ImU32 kPointColor = plot_rgba(150, 200, 255);
const ImU32 kCurrentColor = plot_rgba(255, 205, 80);
const ImU32 kOverColor = plot_rgba(255, 115, 100);
const ImU32 kGridColor = plot_rgba(70, 72, 80);
const ImU32 kAxisTextColor = plot_rgba(160, 160, 170);

// A log10 axis over lo..hi (both > 0), padded a little on each side.
struct LogAxis {
  double lo = 1.0, hi = 10.0;
  float px0 = 0.f, px1 = 1.f;  // screen positions of lo and hi
  float at(double v) const {
    const double t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return px0 + static_cast<float>(t) * (px1 - px0);
  }
};

LogAxis log_axis(double lo, double hi, float px0, float px1) {
  lo = std::max(lo, 1e-12);
  hi = std::max(hi, lo * 1.0001);
  const double pad = 0.08 * (std::log10(hi) - std::log10(lo)) + 0.05;
  return {std::pow(10.0, std::log10(lo) - pad), std::pow(10.0, std::log10(hi) + pad), px0, px1};
}

// Grid lines and labels at 1, 2 and 5 times each power of ten in the axis.
template <class Draw>
void for_each_tick(const LogAxis& axis, const Draw& draw) {
  for (int e = static_cast<int>(std::floor(std::log10(axis.lo))); e <= static_cast<int>(std::ceil(std::log10(axis.hi)));
       ++e) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v >= axis.lo && v <= axis.hi) draw(v);
    }
  }
}

std::string bytes_text(double bytes) {
  char text[32];
  if (bytes >= 1e6) {
    std::snprintf(text, sizeof text, "%.3g MB", bytes / 1e6);
  } else if (bytes >= 1e3) {
    std::snprintf(text, sizeof text, "%.3g kB", bytes / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  }
  return text;
}

std::string mm_text(double metres) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g mm", metres * 1000.0);
  return text;
}

void set_tolerance(StudioState& state, float tolerance_m) {
  if (state.settings.fit.tolerance_m == tolerance_m) return;
  state.settings.fit.tolerance_m = tolerance_m;
  state.refit_requested = true;
}

void point_tooltip(const RdPoint& p, bool current) {
  ImGui::BeginTooltip();
  ImGui::Text("tolerance %s%s", mm_text(p.tolerance_m).c_str(), current ? " (the current fit)" : "");
  ImGui::Text("stream %zu bytes (%.2f : 1), %zu keys, jump frames %zu bytes", p.stream_bytes, p.ratio, p.key_count,
              p.jump_frame_bytes);
  ImGui::Text("largest object-space error %s", mm_text(p.max_error_m).c_str());
  if (p.bones_over > 0) ImGui::Text("%zu bones over (their coding's floor is above it)", p.bones_over);
  ImGui::Text("a random seek reads %.0f keys", p.seek_keys);
  if (!current) ImGui::TextDisabled("click: fit at this tolerance");
  ImGui::EndTooltip();
}

}  // namespace

std::optional<ImVec2> RdPanel::row_center(size_t index) const {
  if (index >= m_row_centers.size()) return std::nullopt;
  return m_row_centers[index];
}

void RdPanel::draw(StudioState& state, const RdSweepWorker& worker) {
  m_report.clear();
  m_row_centers.clear();
  if (!visible) return;
  const std::optional<RdSweep> sweep = worker.latest();
  const bool sweeping = worker.busy();
  ImGui::SetNextWindowPos(ImVec2(420.f, 90.f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(760.f, 560.f), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Rate-distortion", &visible)) {
    ImGui::End();
    return;
  }
  if (!state.clip) {
    ImGui::TextDisabled("No clip open.");
  } else if (state.settings.fit.error_mode == ErrorMode::kLocal) {
    ImGui::TextWrapped("The sweep varies the object-space tolerance; local mode (Settings, Advanced) has none.");
  } else if (!sweep || sweep->clip != state.clip) {
    ImGui::TextDisabled("Sweeping the tolerances...");
  } else {
    ImGui::TextWrapped(
        "%s: stream bytes against the largest object-space error over the bones (each at its shell "
        "distance), fitted at %zu tolerances from %s to %s; every other setting as in Settings.",
        excerpt(state.clip->clip.name, 60).c_str(), sweep->total, mm_text(kSweepTolerances_m[0]).c_str(),
        mm_text(kSweepTolerances_m[std::size(kSweepTolerances_m) - 1]).c_str());
    if (sweeping && !sweep->done()) {
      char label[64];
      std::snprintf(label, sizeof label, "%zu of %zu points", sweep->points.size(), sweep->total);
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImVec4(0.55f, 0.38f, 0.05f, 1.f));
      ImGui::ProgressBar(
          static_cast<float>(sweep->points.size()) / static_cast<float>(std::max<size_t>(sweep->total, 1)),
          ImVec2(-FLT_MIN, 0.f), label);
      ImGui::PopStyleColor();
    }
    if (!sweep->error.empty())
      ImGui::TextColored(ImVec4(1.f, 0.4f, 0.4f, 1.f), "%s", excerpt(sweep->error, 300).c_str());
    const float table_height = ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(sweep->total) + 2.5f);
    draw_plot(state, *sweep, std::max(160.f, ImGui::GetContentRegionAvail().y - table_height));
    draw_table(state, *sweep);
    char report[160];
    std::snprintf(report, sizeof report, "rd %zu points of %zu, current %s", sweep->points.size(), sweep->total,
                  mm_text(state.settings.fit.tolerance_m).c_str());
    m_report = report;
  }
  ImGui::End();
}

void RdPanel::draw_plot(StudioState& state, const RdSweep& sweep, float height) {
  const FitResult* current = state.current_result();
  const bool current_in_sweep = current != nullptr && current->clip == sweep.clip && current->error.empty();
  // The current fit's own point: from its result, not the sweep (its tolerance may be between the sweep's).
  RdPoint now;
  if (current_in_sweep) {
    now.tolerance_m = current->settings.fit.tolerance_m;
    now.stream_bytes = current->stream.size();
    for (const float e : current->measurement.bone_error_m) now.max_error_m = std::max(now.max_error_m, e);
  }
  double x_lo = DBL_MAX, x_hi = 0.0, y_lo = DBL_MAX, y_hi = 0.0;
  const auto extend = [&](const RdPoint& p) {
    const double x = std::max(static_cast<double>(p.max_error_m), 1e-7);
    x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
    y_lo = std::min(y_lo, static_cast<double>(p.stream_bytes)),
    y_hi = std::max(y_hi, static_cast<double>(p.stream_bytes));
  };
  for (const RdPoint& p : sweep.points) extend(p);
  if (current_in_sweep) extend(now);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 200.f);
  ImGui::InvisibleButton("rd plot", ImVec2(width, height));
  const bool plot_hovered = ImGui::IsItemHovered();
  const bool plot_clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), plot_rgba(24, 25, 29));
  if (sweep.points.empty() && !current_in_sweep) return;
  const float line = ImGui::GetTextLineHeight();
  const float left = origin.x + ImGui::CalcTextSize("1.23 MB ").x, right = origin.x + width - 12.f;
  const float top = origin.y + 8.f, bottom = origin.y + height - line - 6.f;
  const LogAxis x_axis = log_axis(x_lo, x_hi, left, right);
  const LogAxis y_axis = log_axis(y_lo, y_hi, bottom, top);
  for_each_tick(x_axis, [&](double v) {
    const float x = x_axis.at(v);
    draw->AddLine(ImVec2(x, top), ImVec2(x, bottom), kGridColor);
    const std::string label = mm_text(v);
    draw->AddText(ImVec2(x - 0.5f * ImGui::CalcTextSize(label.c_str()).x, bottom + 3.f), kAxisTextColor, label.c_str());
  });
  for_each_tick(y_axis, [&](double v) {
    const float y = y_axis.at(v);
    draw->AddLine(ImVec2(left, y), ImVec2(right, y), kGridColor);
    const std::string label = bytes_text(v);
    draw->AddText(ImVec2(origin.x + 2.f, y - 0.5f * line), kAxisTextColor, label.c_str());
  });
  const auto at = [&](const RdPoint& p) {
    return ImVec2(x_axis.at(std::max(static_cast<double>(p.max_error_m), 1e-7)),
                  y_axis.at(static_cast<double>(p.stream_bytes)));
  };
  for (size_t i = 1; i < sweep.points.size(); ++i) {
    draw->AddLine(at(sweep.points[i - 1]), at(sweep.points[i]), kLineColor, 1.5f);
  }
  // The point under the mouse, within 8 px.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  float nearest = 64.f;  // squared px
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    const ImVec2 p = at(sweep.points[i]);
    const float d = (p.x - mouse.x) * (p.x - mouse.x) + (p.y - mouse.y) * (p.y - mouse.y);
    if (plot_hovered && d < nearest) nearest = d, hovered = static_cast<int>(i);
  }
  // Each point labelled with its tolerance, unless the label would cover
  // one already drawn (points crowd where the floors stop the error falling).
  std::vector<ImVec4> labels;  // x0, y0, x1, y1 of the labels drawn
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    const RdPoint& point = sweep.points[i];
    const ImVec2 p = at(point);
    draw->AddCircleFilled(p, static_cast<int>(i) == hovered ? 6.f : 4.f,
                          point.bones_over > 0 ? kOverColor : kPointColor);
    const std::string label = mm_text(point.tolerance_m);
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    const ImVec4 box(p.x + 7.f, p.y - line - 1.f, p.x + 7.f + size.x, p.y - line - 1.f + size.y);
    const bool covers = std::any_of(labels.begin(), labels.end(), [&](const ImVec4& o) {
      return box.x < o.z && o.x < box.z && box.y < o.w && o.y < box.w;
    });
    if (covers) continue;
    labels.push_back(box);
    draw->AddText(ImVec2(box.x, box.y), kAxisTextColor, label.c_str());
  }
  if (current_in_sweep) {
    const ImVec2 p = at(now);
    draw->AddCircle(p, 8.f, kCurrentColor, 0, 2.f);
    draw->AddText(ImVec2(p.x + 10.f, p.y + 2.f), kCurrentColor, "current");
  }
  if (hovered >= 0) {
    const RdPoint& point = sweep.points[static_cast<size_t>(hovered)];
    point_tooltip(point, point.tolerance_m == state.settings.fit.tolerance_m);
    if (plot_clicked) set_tolerance(state, point.tolerance_m);
  }
  draw->AddText(ImVec2(right - ImGui::CalcTextSize("largest object-space error").x, top), kAxisTextColor,
                "largest object-space error");
  draw->AddText(ImVec2(left + 4.f, top), kAxisTextColor, "stream bytes");
}

void RdPanel::draw_table(StudioState& state, const RdSweep& sweep) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("rd points", 7, flags)) return;
  for (const char* heading : {"tolerance", "bytes", "ratio", "keys", "largest error", "bones over", "keys per seek"}) {
    ImGui::TableSetupColumn(heading);
  }
  ImGui::TableHeadersRow();
  for (const RdPoint& p : sweep.points) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool current = p.tolerance_m == state.settings.fit.tolerance_m;
    const std::string label = mm_text(p.tolerance_m) + "##" + std::to_string(p.tolerance_m);
    if (ImGui::Selectable(label.c_str(), current, ImGuiSelectableFlags_SpanAllColumns))
      set_tolerance(state, p.tolerance_m);
    if (ImGui::IsItemHovered()) point_tooltip(p, current);
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    m_row_centers.emplace_back(lo.x + 0.5f * (hi.x - lo.x), lo.y + 0.5f * (hi.y - lo.y));
    ImGui::TableNextColumn();
    ImGui::Text("%zu", p.stream_bytes);
    ImGui::TableNextColumn();
    ImGui::Text("%.2f", p.ratio);
    ImGui::TableNextColumn();
    ImGui::Text("%zu", p.key_count);
    ImGui::TableNextColumn();
    ImGui::Text("%s", mm_text(p.max_error_m).c_str());
    ImGui::TableNextColumn();
    if (p.bones_over > 0) {
      ImGui::TextColored(ImVec4(1.f, 0.45f, 0.4f, 1.f), "%zu", p.bones_over);
    } else {
      ImGui::TextDisabled("0");
    }
    ImGui::TableNextColumn();
    ImGui::Text("%.0f", p.seek_keys);
  }
  ImGui::EndTable();
}

}  // namespace ks::studio
