#include "app/studio/studio_app.h"

// glad before GLFW: GLFW must not pull in the system GL header first.
#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "app/studio/curve_panel.h"
#include "app/studio/layout.h"
#include "app/studio/panels.h"
#include "app/studio/png_writer.h"
#include "core/clip/excerpt.h"
#include "core/io/file_io.h"
#include "core/io/import.h"
#include "core/io/stream_file.h"

namespace ks::studio {

namespace {

constexpr size_t kMaxRecent = 10;

std::filesystem::path recent_path() {
  const std::filesystem::path layout = user_layout_path();
  return layout.empty() ? layout : layout.parent_path() / "recent.txt";
}

// A .ks file opens as the clip it decodes to (the studio re-fits that).
Result<ImportedClip> load_any(const std::filesystem::path& path, const ImportSettings& settings) {
  if (lowercase_extension(path) != ".ks") return import_clip(path, settings);
  Result<std::unique_ptr<StreamFile>> file = load_stream_file(path);
  if (!file) return Error{file.error()};
  DecodedStream decoded = decode_stream(file.value()->view);
  ImportedClip clip;
  clip.source = path;
  clip.skeleton = std::move(decoded.skeleton);
  clip.clip = std::move(decoded.clip);
  clip.animation_names = {clip.clip.name};
  return clip;
}

}  // namespace

StudioApp::StudioApp(StudioOptions options) : m_options(std::move(options)) {
  m_state.import_settings = m_options.import;
  if (m_options.fit) m_state.settings.fit = *m_options.fit;
  if (const std::filesystem::path recent = recent_path(); !recent.empty()) {
    std::ifstream in(recent);
    for (std::string line; std::getline(in, line) && m_state.recent_files.size() < kMaxRecent;) {
      if (!line.empty()) m_state.recent_files.emplace_back(line);
    }
  }
}

StudioApp::~StudioApp() {
  m_viewport.reset();  // its GL objects go while the context lives
  if (m_imgui_ready) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (m_window != nullptr) glfwDestroyWindow(m_window);
  glfwTerminate();
}

void StudioApp::on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* app = static_cast<StudioApp*>(glfwGetWindowUserPointer(window));
  for (int i = 0; i < count; ++i) app->m_dropped.emplace_back(paths[i]);
}

bool StudioApp::init_window() {
  glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "keystream-studio: GLFW %d: %s\n", code, text); });
  if (glfwInit() == GLFW_FALSE) return false;
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  m_window = glfwCreateWindow(m_options.width, m_options.height, "keystream studio", nullptr, nullptr);
  if (m_window == nullptr) return false;
  glfwMakeContextCurrent(m_window);
  glfwSwapInterval(m_options.screenshot ? 0 : 1);
  if (gladLoadGL(glfwGetProcAddress) == 0) {
    std::fprintf(stderr, "keystream-studio: cannot load OpenGL 3.3 core functions\n");
    return false;
  }
  glfwSetWindowUserPointer(m_window, this);
  glfwSetDropCallback(m_window, on_drop);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout.h saves to the user's folder instead
  ImGui::StyleColorsDark();
  load_layout(KS_DEFAULT_LAYOUT, m_options.width, m_options.height);
  ImGui_ImplGlfw_InitForOpenGL(m_window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  m_imgui_ready = true;
  m_viewport = std::make_unique<ViewportPanel>(m_options.shader_dir, m_options.viewport);
  if (const std::string errors = m_viewport->shader_errors(); !errors.empty()) {
    std::fprintf(stderr, "keystream-studio: viewport shaders: %s\n", errors.c_str());
  }
  return true;
}

Status StudioApp::open_clip(const std::filesystem::path& path) {
  Result<ImportedClip> loaded = load_any(path, m_state.import_settings);
  if (!loaded) {
    m_state.load_error = loaded.error();
    return Error{loaded.error()};
  }
  m_state.load_error.clear();
  m_state.warnings_dismissed = false;
  m_state.clip = std::make_shared<const ImportedClip>(std::move(loaded.value()));
  m_state.clip_path = path;
  // Overrides name bones: those of another skeleton would fail the fit.
  std::vector<BoneTolerance>& overrides = m_state.settings.fit.bone_tolerances;
  const Skeleton& skeleton = m_state.clip->skeleton;
  overrides.erase(std::remove_if(overrides.begin(), overrides.end(),
                                 [&](const BoneTolerance& o) { return skeleton.find_bone(o.bone) < 0; }),
                  overrides.end());
  m_state.override_edit.bone = -1;
  m_state.selected_bone = std::min<int>(m_state.selected_bone, static_cast<int>(m_state.clip->skeleton.bone_count()) - 1);
  m_state.frame_time = std::min(m_state.frame_time, static_cast<float>(m_state.clip->clip.frame_count - 1));
  m_state.refit_requested = true;
  remember_recent(path);
  return {};
}

void StudioApp::remember_recent(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::vector<std::filesystem::path>& recent = m_state.recent_files;
  recent.erase(std::remove(recent.begin(), recent.end(), absolute), recent.end());
  recent.insert(recent.begin(), absolute);
  if (recent.size() > kMaxRecent) recent.resize(kMaxRecent);
  if (m_options.screenshot) return;  // tests leave the user's files alone
  const std::filesystem::path file = recent_path();
  if (file.empty()) return;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::string text;
  for (const std::filesystem::path& p : recent) text += p.string() + "\n";
  static_cast<void>(write_file_atomically(file, text));  // a lost recent list is not worth an error
}

void StudioApp::handle_requests() {
  for (const std::filesystem::path& dropped : m_dropped) m_state.open_requested = dropped;
  m_dropped.clear();
  if (!m_state.open_requested.empty()) {
    const std::filesystem::path path = std::move(m_state.open_requested);
    m_state.open_requested.clear();
    static_cast<void>(open_clip(path));  // a failure is shown in the UI; the current clip stays
    if (!m_state.load_error.empty()) m_show_open = true;
  }
  if (m_state.refit_requested && m_state.clip) {
    m_state.refit_requested = false;
    m_worker.request(m_state.clip, m_state.settings);
  }
  m_state.result = m_worker.latest();
  m_state.fitting = m_worker.busy();
}

void StudioApp::handle_keys() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  const float last = m_state.clip ? static_cast<float>(m_state.clip->clip.frame_count - 1) : 0.f;
  // ImGui 1.86 indexes keys by the backend's codes: GLFW's.
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) m_state.playing = !m_state.playing;
  if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) m_state.frame_time = std::max(0.f, std::ceil(m_state.frame_time) - 1.f);
  if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) m_state.frame_time = std::min(last, std::floor(m_state.frame_time) + 1.f);
  if (ImGui::IsKeyPressed(GLFW_KEY_HOME, false)) m_state.frame_time = 0.f;
  if (ImGui::IsKeyPressed(GLFW_KEY_END, false)) m_state.frame_time = last;
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O, false)) m_show_open = true;
  if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_F, false)) m_state.frame_selection_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) m_show_help = true;
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_R, false)) m_viewport->reload_shaders();
}

void StudioApp::advance_time(float dt_seconds) {
  if (!m_state.playing || !m_state.clip) return;
  const RawClip& clip = m_state.clip->clip;
  const float last = static_cast<float>(clip.frame_count - 1);
  m_state.frame_time += dt_seconds * clip.sample_rate_hz * m_state.speed;
  if (m_state.frame_time > last) {
    m_state.frame_time = m_state.looping ? std::fmod(m_state.frame_time, last) : last;
    if (!m_state.looping) m_state.playing = false;
  }
}

void StudioApp::update_player() {
  const FitResult* result = m_state.current_result();
  if (result == nullptr) return;
  if (m_player_result.get() != result) {
    m_player_result = m_state.result;
    m_player = std::make_unique<Player>(result->view);
    m_pose.assign(result->view.bone_count(), Transform{});
  }
  const PlayerCounters before = m_player->counters();
  m_player->sample_frame(m_state.frame_time, m_pose);
  const PlayerCounters& after = m_player->counters();
  m_state.keys_read_last_frame = after.keys_read - before.keys_read;
  if (after.jump_frames_used != before.jump_frames_used || after.restarts != before.restarts) {
    m_state.last_seek_keys = after.keys_read - before.keys_read;
    m_state.last_seek_blocks = after.blocks_decompressed - before.blocks_decompressed;
    m_state.last_seek_frame = m_state.frame_time;
    m_state.last_seek_restarted = after.restarts != before.restarts;
  }
  m_state.player_memory_bytes = m_player->memory_bytes();
}

void StudioApp::draw_menu_bar() {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open...", "Ctrl+O")) m_show_open = true;
    if (ImGui::MenuItem("Quit")) glfwSetWindowShouldClose(m_window, GLFW_TRUE);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Reload shaders", "Ctrl+R")) m_viewport->reload_shaders();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keyboard shortcuts", "F1")) m_show_help = true;
    ImGui::EndMenu();
  }
  // What the import could not use stays in view until dismissed: an
  // animation that lost a channel must not look whole.
  if (m_state.clip && !m_state.clip->warnings.empty() && !m_state.warnings_dismissed) {
    const std::vector<std::string>& warnings = m_state.clip->warnings;
    const std::string label =
        std::to_string(warnings.size()) + (warnings.size() == 1 ? " import warning" : " import warnings");
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    const bool open = ImGui::BeginMenu(label.c_str());
    ImGui::PopStyleColor();
    if (open) {
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.f);
      for (const std::string& warning : warnings) ImGui::TextUnformatted(excerpt(warning, 300).c_str());
      ImGui::PopTextWrapPos();
      ImGui::Separator();
      if (ImGui::MenuItem("Dismiss")) m_state.warnings_dismissed = true;
      ImGui::EndMenu();
    }
  }
  if (m_state.clip) {
    const RawClip& clip = m_state.clip->clip;
    ImGui::Separator();
    ImGui::Text("%s [%s]  frame %.1f / %u  %s", excerpt(m_state.clip_path.filename().string(), 120).c_str(),
                excerpt(clip.name, 120).c_str(),
                static_cast<double>(m_state.frame_time), clip.frame_count - 1,
                m_state.playing ? "playing (space: pause)" : "paused (space: play)");
  }
  if (m_state.fitting) {
    ImGui::Separator();
    ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f), "fitting...");
  }
  ImGui::EndMainMenuBar();
}

void StudioApp::draw_help() {
  if (!m_show_help) return;
  if (ImGui::Begin("Keyboard shortcuts", &m_show_help, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::Text("Space          play / pause");
    ImGui::Text("Left / Right   previous / next frame");
    ImGui::Text("Home / End     first / last frame");
    ImGui::Text("Ctrl+O         open a clip");
    ImGui::Text("F              frame the selection in the curves");
    ImGui::Text("Ctrl+R         reload the viewport's shaders");
    ImGui::Text("F1             this list");
    ImGui::Separator();
    ImGui::Text("Viewport: drag orbits, Shift+drag or right/middle drag pans, wheel zooms,");
    ImGui::Text("double-click frames the character, click a bone to select it.");
    ImGui::Text("Curves: wheel zooms time, Ctrl+wheel zooms values, drag pans,");
    ImGui::Text("double-click fits, click sets the time. Drop a file on the window to open it.");
  }
  ImGui::End();
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
  if (m_play_start < 0.0) {
    if (m_state.fitting || m_state.current_result() == nullptr) return false;  // start after the first fit
    m_play_start = now;
    m_state.playing = true;
    m_state.looping = true;
    return false;
  }
  m_frame_ms.push_back(frame_ms);
  m_viewport_ms.push_back(viewport_ms);
  m_keys_per_frame.push_back(static_cast<double>(m_state.keys_read_last_frame));
  const double t = now - m_play_start;
  if (t < m_options.play_seconds) return false;
  const Spread frame = spread(m_frame_ms), viewport = spread(m_viewport_ms), keys = spread(m_keys_per_frame);
  const ImportedClip& clip = *m_state.clip;
  std::printf("play %.1f s on %s (%zu bones, %zu mesh vertices): %zu frames, frame time median %.1f ms (%.1f-%.1f), "
              "viewport median %.1f ms (%.1f-%.1f), keys read per frame median %.0f (%.0f-%.0f)\n",
              t, m_state.clip_path.filename().string().c_str(), clip.skeleton.bone_count(),
              clip.mesh ? clip.mesh->vertex_count() : size_t{0}, m_frame_ms.size(), frame.median, frame.min,
              frame.max, viewport.median, viewport.min, viewport.max, keys.median, keys.min, keys.max);
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
  std::printf("drag %.1f s on %s: %zu frames, frame time median %.1f ms, 99th percentile %.1f ms, max %.1f ms; "
              "%zu fits finished (last fit %.0f ms)\n",
              t, m_state.clip_path.filename().string().c_str(), m_frame_ms.size(), frame.median, frame.p99,
              frame.max, m_generations_seen.size(),
              m_state.result ? m_state.result->fit_ms : 0.0);
  return true;
}

int StudioApp::run() {
  // Load before opening a window: a bad file in screenshot mode fails fast.
  if (Status s = open_clip(m_options.clip); !s) {
    std::fprintf(stderr, "keystream-studio: %s\n", s.error().c_str());
    if (m_options.screenshot) return 1;
    m_show_open = true;
  }
  if (m_state.clip) {
    const Skeleton& skeleton = m_state.clip->skeleton;
    if (m_options.fit) {
      // open_clip dropped overrides naming no bone of the clip; the command line must not lose them silently.
      for (const BoneTolerance& o : m_options.fit->bone_tolerances) {
        if (skeleton.find_bone(o.bone) >= 0) continue;
        std::fprintf(stderr, "keystream-studio: --bone-tolerance: %s has no bone '%s'\n",
                     m_options.clip.string().c_str(), o.bone.c_str());
        return 2;
      }
    }
    if (!m_options.select.empty()) {
      const int by_name = skeleton.find_bone(m_options.select);
      char* end = nullptr;
      const long by_index = std::strtol(m_options.select.c_str(), &end, 10);
      if (by_name >= 0) {
        m_state.selected_bone = by_name;
      } else if (*end == '\0' && by_index >= 0 && by_index < static_cast<long>(skeleton.bone_count())) {
        m_state.selected_bone = static_cast<int>(by_index);
      } else {
        std::fprintf(stderr, "keystream-studio: --select: %s has no bone '%s'\n", m_options.clip.string().c_str(),
                     m_options.select.c_str());
        return 2;
      }
    }
    // The clip plays from the start, as a viewer expects; a frame asked for
    // (or a screenshot) holds still.
    m_state.playing = !m_options.frame && !m_options.screenshot && m_options.drag_seconds <= 0.f;
    if (m_options.frame) {
      m_state.frame_time = std::clamp(*m_options.frame, 0.f, static_cast<float>(m_state.clip->clip.frame_count - 1));
    }
  }
  if (!init_window()) {
    std::fprintf(stderr, "keystream-studio: cannot open an OpenGL 3.3 window (is a display available?)\n");
    return 1;
  }
  double previous = glfwGetTime();
  double frame_start = previous;
  int settled_frames = 0;  // frames drawn since the fit finished (screenshot mode)
  while (!glfwWindowShouldClose(m_window)) {
    glfwPollEvents();
    const double now = glfwGetTime();
    const float dt = static_cast<float>(now - previous);
    previous = now;
    handle_requests();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // A screenshot shows the UI as nobody's mouse is over it (Xvfb parks the pointer mid-screen).
    if (m_options.screenshot) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::NewFrame();
    handle_keys();
    advance_time(dt);
    update_player();
    draw_menu_bar();
    draw_settings_panel(m_state);
    draw_stats_panel(m_state);
    m_bone_tree.draw(m_state);
    m_curves.draw(m_state);
    // --simulate-play times the viewport alone: the GL work it queues is
    // finished inside the measurement, not later in the frame.
    const bool time_viewport = m_options.play_seconds > 0.f;
    if (time_viewport) glFinish();
    const double viewport_start = glfwGetTime();
    m_viewport->draw(m_state, m_state.current_result() != nullptr && m_player ? std::span<const Transform>(m_pose)
                                                                              : std::span<const Transform>());
    if (time_viewport) glFinish();
    const double viewport_ms = (glfwGetTime() - viewport_start) * 1000.0;
    m_timeline.draw(m_state);
    draw_open_panel(m_state, &m_show_open);
    draw_help();
    m_state.frame_selection_requested = false;
    ImGui::Render();

    int width = 0, height = 0;
    glfwGetFramebufferSize(m_window, &width, &height);
    glViewport(0, 0, width, height);
    glClearColor(0.08f, 0.08f, 0.09f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    if (m_options.screenshot) {
      // Wait for the fit, then give ImGui a few frames to size its windows.
      const bool done = !m_state.fitting && m_state.current_result() != nullptr && !m_state.refit_requested;
      if (!done && m_state.result && !m_state.result->error.empty() && !m_state.fitting) {
        std::fprintf(stderr, "keystream-studio: %s: %s\n", m_options.clip.string().c_str(), m_state.result->error.c_str());
        return 1;
      }
      settled_frames = done ? settled_frames + 1 : 0;
      if (settled_frames >= 3) {
        for (const ViewRect& view : m_viewport->view_rects()) {
          std::printf("view %s %d %d %d %d\n", view.name.c_str(), view.x, view.y, view.width, view.height);
        }
        std::fflush(stdout);
        if (Status s = write_framebuffer_png(*m_options.screenshot, width, height); !s) {
          std::fprintf(stderr, "keystream-studio: %s\n", s.error().c_str());
          return 1;
        }
        return 0;
      }
      if (!done) m_worker.wait_idle();
    } else if (m_options.drag_seconds <= 0.f && m_options.play_seconds <= 0.f) {
      save_layout_if_changed();
    }
    glfwSwapBuffers(m_window);
    const double frame_end = glfwGetTime();
    if (m_options.drag_seconds > 0.f && simulate_drag(frame_end, (frame_end - frame_start) * 1000.0)) return 0;
    if (m_options.play_seconds > 0.f && simulate_play(frame_end, (frame_end - frame_start) * 1000.0, viewport_ms)) {
      return 0;
    }
    frame_start = frame_end;
  }
  return 0;
}

}  // namespace ks::studio
