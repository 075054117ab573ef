#include "app/studio/app/studio_app.h"

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

#include "app/studio/app/layout.h"
#include "app/studio/io/open_choice.h"
#include "app/studio/panels/curve_panel.h"
#include "app/studio/panels/panels.h"
#include "app/studio/settings/additive_choice.h"
#include "app/studio/settings/scalar_precision_edit.h"
#include "keystream/clip/excerpt.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_file.h"

namespace ks::studio {

namespace {

constexpr size_t kMaxRecent = 10;

std::filesystem::path recent_path() {
  const std::filesystem::path layout = user_layout_path();
  return layout.empty() ? layout : layout.parent_path() / "recent.txt";
}

// A .ks file opens as the clip it decodes to (the studio re-fits that).
Result<ImportedClip> load_any(const std::filesystem::path& path, const ImportSettings& settings) {
  if (lowercase_extension(path) != ".ks") {
    // The viewport draws a glTF character with its base colour textures.
    ImportSettings textured = settings;
    textured.read_textures = true;
    return import_clip(path, textured);
  }
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
  if (m_imgui_ready) m_curves.release_gl();
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
  glfwSwapInterval(m_options.scripted() ? 0 : 1);
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

Status StudioApp::open_clip(const std::filesystem::path& path, const ImportSettings& settings) {
  Result<ImportedClip> loaded = load_any(path, settings);
  if (!loaded) {
    m_state.load_error = loaded.error();
    return Error{loaded.error()};
  }
  m_state.load_error.clear();
  m_state.warnings_dismissed = false;
  const std::shared_ptr<const ImportedClip> previous = std::move(m_state.clip);
  const std::filesystem::path previous_path = m_state.clip_path;
  m_state.clip = std::make_shared<const ImportedClip>(std::move(loaded.value()));
  m_state.imported = m_state.clip;
  m_state.clip_path = path;
  m_state.import_settings = settings;
  // Overrides name bones: those of another skeleton would fail the fit.
  std::vector<BoneTolerance>& overrides = m_state.settings.fit.bone_tolerances;
  const Skeleton& skeleton = m_state.clip->skeleton;
  const auto bones = bone_index_by_name(skeleton.bone_names);
  overrides.erase(std::remove_if(overrides.begin(), overrides.end(),
                                 [&](const BoneTolerance& o) { return !bones.contains(o.bone); }),
                  overrides.end());
  m_state.override_edit.bone = -1;
  drop_foreign_scalar_precisions(m_state.settings.fit, m_state.clip->clip);
  m_state.precision_edit.track = -1;
  m_state.selected_scalar =
      scalar_track_after_open(previous ? &previous->clip : nullptr, m_state.selected_scalar, m_state.clip->clip);
  // Another clip starts at its first frame, on the bone of the same name
  // (bone indices of another rig mean another bone); the viewport and the
  // curves frame a new clip themselves.
  // A bone chosen in the previous file stays chosen when this one has it;
  // otherwise the first fit selects the bone with the largest error.
  const int selected = m_state.selected_bone;
  const bool kept = previous && selected >= 0 && static_cast<size_t>(selected) < previous->skeleton.bone_count() &&
                    skeleton.find_bone(previous->skeleton.bone_names[static_cast<size_t>(selected)]) >= 0;
  m_state.selection_chosen = m_state.selection_chosen && kept;
  m_state.selected_bone = bone_after_open(previous ? &previous->skeleton : nullptr, selected, skeleton);
  m_state.frame_time = 0.f;
  m_state.refit_requested = true;
  remember_recent(path);
  // The base stays chosen for the new clip when it can be its base.
  const AdditiveBaseSpec base = base_after_open(m_state.additive, previous_path, path);
  m_state.additive = {};
  m_state.additive_error.clear();
  if (base.base != AdditiveBase::kNone) static_cast<void>(set_additive_base(base));  // Settings shows a failure
  return {};
}

Status StudioApp::set_additive_base(const AdditiveBaseSpec& requested) {
  if (!m_state.imported) return Error{"no clip is open"};
  const AdditiveBaseSpec spec = absolute_base(requested);
  Result<std::shared_ptr<const ImportedClip>> made = clip_to_fit(m_state.imported, spec, m_state.import_settings);
  if (!made) {
    m_state.additive_error = made.error();
    return Error{made.error()};
  }
  m_state.additive_error.clear();
  m_state.additive = spec;
  m_state.clip = std::move(made.value());
  m_state.refit_requested = true;
  return {};
}

void StudioApp::remember_recent(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::vector<std::filesystem::path>& recent = m_state.recent_files;
  recent.erase(std::remove(recent.begin(), recent.end(), absolute), recent.end());
  recent.insert(recent.begin(), absolute);
  if (recent.size() > kMaxRecent) recent.resize(kMaxRecent);
  if (m_options.unattended()) return;  // tests and timing runs leave the user's files alone
  const std::filesystem::path file = recent_path();
  if (file.empty()) return;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::string text;
  for (const std::filesystem::path& p : recent) text += p.string() + "\n";
  static_cast<void>(write_file_atomically(file, text));  // a lost recent list is not worth an error
}

void StudioApp::handle_requests() {
  if (m_dropped.size() > 1) {
    // Several files dropped at once: one set.
    ImportSettings settings = m_state.import_settings;
    settings.animation_name.clear();
    settings.animation_index = 0;
    static_cast<void>(open_paths(m_dropped, settings));  // a failure is shown in the UI; the current clip stays
  } else if (m_dropped.size() == 1) {
    m_state.open_requested = m_dropped.front();
    m_state.open_animation = 0;
  }
  m_dropped.clear();
  if (!m_state.open_requested.empty()) {
    const std::filesystem::path path = std::move(m_state.open_requested);
    m_state.open_requested.clear();
    // The settings of the last open, but the animation asked for: a new file starts at its first.
    ImportSettings settings = m_state.import_settings;
    settings.animation_name.clear();
    settings.animation_index = m_state.open_animation;
    static_cast<void>(open_paths({path}, settings));  // a failure is shown in the UI; the current clip stays
    m_show_open = !m_state.load_error.empty();     // the Open panel closes once its file is open
  }
  if (m_state.additive_requested) {
    const AdditiveBaseSpec spec = std::move(*m_state.additive_requested);
    m_state.additive_requested.reset();
    static_cast<void>(set_additive_base(spec));  // a failure is shown in Settings; the clip stays
  }
  if (m_state.refit_requested && m_state.clip) {
    m_state.refit_requested = false;
    m_worker.request(m_state.clip, m_state.settings);
  }
  m_state.result = m_worker.latest();
  handle_set();
  // The sweep runs only while its panel is open; the same clip and settings
  // (but the tolerance) are swept once.
  if (m_rd_panel.visible && m_state.clip && m_state.settings.fit.error_mode == ErrorMode::kObjectSpace) {
    m_rd_worker.request({m_state.clip, m_state.settings});
  }
  m_state.refit = m_worker.status();
  m_state.fitting = m_state.refit.busy;
  if (const FitResult* r = m_state.current_result(); r != nullptr && !m_state.selection_chosen) {
    if (const int worst = worst_bone(*r, /*moving_only=*/true); worst >= 0) m_state.selected_bone = worst;
    m_state.selection_chosen = true;
  }
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
  if (m_state.clip && io.KeyCtrl && !io.KeyShift && ImGui::IsKeyPressed(GLFW_KEY_S, false)) {
    m_save.open(SaveKind::kStream, m_state);
  }
  if (m_state.clip && io.KeyCtrl && !io.KeyShift && ImGui::IsKeyPressed(GLFW_KEY_E, false)) {
    m_save.open(SaveKind::kDecodedGlb, m_state);
  }
  if (m_state.clip && io.KeyCtrl && io.KeyShift && ImGui::IsKeyPressed(GLFW_KEY_C, false)) {
    m_command.open(m_state, m_save.stream_path(m_state));
  }
  if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_F, false)) m_state.frame_selection_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) m_show_help = true;
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_R, false)) m_viewport->reload_shaders();
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_D, false)) m_rd_panel.visible = !m_rd_panel.visible;
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_T, false)) toggle_set_tab();
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
    m_scalar_values.assign(m_player->scalar_value_count(), 0.f);
    m_scalar_offsets.resize(result->view.scalar_track_count());
    for (uint32_t s = 0; s < m_scalar_offsets.size(); ++s) m_scalar_offsets[s] = m_player->scalar_value_offset(s);
  }
  const PlayerCounters before = m_player->counters();
  m_player->sample_frame(m_state.frame_time, m_pose, m_scalar_values);
  const PlayerCounters& after = m_player->counters();
  m_state.keys_read_last_frame = after.keys_read - before.keys_read;
  if (after.jump_frames_used != before.jump_frames_used || after.restarts != before.restarts ||
      after.cached_seeks != before.cached_seeks) {
    m_state.last_seek_keys = after.keys_read - before.keys_read;
    m_state.last_seek_frame = m_state.frame_time;
    m_state.last_seek_restarted = after.restarts != before.restarts;
    m_state.last_seek_cached = after.cached_seeks != before.cached_seeks;
  }
  m_state.player_memory_bytes = m_player->memory_bytes();
  m_state.player_key_cache_bytes = m_player->key_cache_bytes();
}

std::string StudioApp::fit_error() const {
  const FitResult* r = m_state.result.get();
  if (r == nullptr || r->clip != m_state.clip || r->error.empty() || r->abandoned || m_state.fitting) return {};
  return r->error;
}

int StudioApp::run() {
  // Load before opening a window: a bad file in an unattended run fails
  // fast. A person gets the window, with no clip and the Open window showing
  // the error, to pick another file.
  const Status opened = open_paths(m_options.set_files.empty() ? std::vector{m_options.clip} : m_options.set_files,
                                  m_options.import);
  if (Status s = opened; !s) {
    std::fprintf(stderr, "keystream-studio: %s\n", excerpt(s.error(), kMessageExcerptChars).c_str());
    if (m_options.unattended()) return 1;
    m_show_open = true;
  }
  if (m_state.clip && m_options.additive) {
    if (Status s = set_additive_base(*m_options.additive); !s) {
      std::fprintf(stderr, "keystream-studio: --additive-base: %s\n", excerpt(s.error(), kMessageExcerptChars).c_str());
      if (m_options.unattended()) return 1;
    }
  }
  if (m_state.clip) {
    const Skeleton& skeleton = m_state.clip->skeleton;
    if (m_options.fit) {
      // open_clip dropped overrides naming no bone of the clip; the command line must not lose them silently.
      const auto bones = bone_index_by_name(skeleton.bone_names);
      for (const BoneTolerance& o : m_options.fit->bone_tolerances) {
        if (bones.contains(o.bone)) continue;
        std::fprintf(stderr, "keystream-studio: --bone-tolerance: %s has no bone '%s'\n",
                     excerpt(m_state.clip_path.string(), kPathExcerptChars).c_str(), excerpt(o.bone).c_str());
        return 2;
      }
      for (const ScalarPrecision& o : m_options.fit->scalar_precisions) {
        if (find_scalar_track(m_state.clip->clip, o.track) >= 0) continue;
        std::fprintf(stderr, "keystream-studio: --scalar-precision: %s has no scalar track '%s'\n",
                     excerpt(m_state.clip_path.string(), kPathExcerptChars).c_str(), excerpt(o.track).c_str());
        return 2;
      }
    }
    if (!m_options.select_curve.empty()) {
      m_state.selected_scalar = scalar_track_by_name_or_index(m_state.clip->clip, m_options.select_curve);
      if (m_state.selected_scalar < 0) {
        std::fprintf(stderr, "keystream-studio: --select-curve: %s has no scalar track '%s'\n",
                     excerpt(m_state.clip_path.string(), kPathExcerptChars).c_str(),
                     excerpt(m_options.select_curve).c_str());
        return 2;
      }
    }
    if (!m_options.bone_filter.empty()) m_bone_tree.set_filter(m_options.bone_filter);
    m_curves.set_euler_view(m_options.curve_euler);
    m_rd_panel.visible = m_options.show_rd;
    if (!m_options.select.empty()) {
      const int by_name = skeleton.find_bone(m_options.select);
      char* end = nullptr;
      const long by_index = std::strtol(m_options.select.c_str(), &end, 10);
      m_state.selection_chosen = true;
      if (by_name >= 0) {
        m_state.selected_bone = by_name;
      } else if (*end == '\0' && by_index >= 0 && by_index < static_cast<long>(skeleton.bone_count())) {
        m_state.selected_bone = static_cast<int>(by_index);
      } else {
        std::fprintf(stderr, "keystream-studio: --select: %s has no bone '%s'\n",
                     excerpt(m_state.clip_path.string(), kPathExcerptChars).c_str(), excerpt(m_options.select).c_str());
        return 2;
      }
    }
    // The clip plays from the start, as a viewer expects; a frame asked for
    // (or a screenshot) holds still.
    m_state.playing = !m_options.frame && !m_options.scripted() && m_options.drag_seconds <= 0.f;
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
  while (!glfwWindowShouldClose(m_window)) {
    // Playing (and the unattended modes) draws every frame. Otherwise the
    // studio draws when input arrives, and every 0.1 s while it waits (a fit's
    // progress, a result arriving): with software GL a frame is most of a
    // core, which a fit would otherwise share with the rasteriser's threads.
    const bool every_frame = m_state.playing || m_options.unattended();
    if (every_frame) {
      glfwPollEvents();
    } else {
      glfwWaitEventsTimeout(0.1);
    }
    const double now = glfwGetTime();
    const float dt = static_cast<float>(now - previous);
    previous = now;
    handle_requests();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // A screenshot shows the UI as nobody's mouse is over it (Xvfb parks the
    // pointer mid-screen), or with the File menu clicked open.
    if (m_options.scripted()) {
      ImGuiIO& io = ImGui::GetIO();
      io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      if (m_rd_click_phase == 1 || m_rd_click_phase == 2) {
        io.MousePos = m_rd_click_at;
        io.MouseDown[0] = m_rd_click_phase == 1;
      }
      if (m_options.show_file_menu && m_script_ran && m_file_menu_x >= 0.f) {
        io.MousePos = ImVec2(m_file_menu_x, m_file_menu_y);
        io.MouseDown[0] = m_settled_frames == 1;
      }
      // ImGui 1.86 reads keys by the backend's codes: GLFW's.
      if (m_options.open_escape && m_script_ran) io.KeysDown[GLFW_KEY_ESCAPE] = m_settled_frames == 1;
    }
    ImGui::NewFrame();
    handle_keys();
    advance_time(dt);
    update_player();
    draw_menu_bar();
    draw_settings_panel(m_state);
    draw_stats_panel(m_state);
    m_bone_tree.draw(m_state);
    if (m_set.empty()) {
      m_curves.draw(m_state);
    } else {
      // The set shares the Curves window, as a tab.
      const PanelTab set_tab{SetPanel::tab_label(m_set_view), m_select_tab == 1, m_select_tab == 0,
                             [this] { m_set_panel.draw(m_state, m_set, m_set_view); }};
      m_curves.draw(m_state, &set_tab);
    }
    m_select_tab = -1;
    // --simulate-play times the viewport alone: the GL work it queues is
    // finished inside the measurement, not later in the frame.
    const bool time_viewport = m_options.play_seconds > 0.f;
    if (time_viewport) glFinish();
    const double viewport_start = glfwGetTime();
    const bool decoded = m_state.current_result() != nullptr && m_player;
    m_viewport->draw(m_state, decoded ? DecodedFrame{m_pose, m_scalar_values, m_scalar_offsets} : DecodedFrame{});
    if (time_viewport) glFinish();
    const double viewport_ms = (glfwGetTime() - viewport_start) * 1000.0;
    m_timeline.draw(m_state);
    m_rd_panel.draw(m_state, m_rd_worker);
    m_open_panel.draw(m_state, &m_show_open);
    m_save.draw(m_state);
    m_command.draw();
    draw_help();
    m_state.frame_selection_requested = false;
    ImGui::Render();

    int width = 0, height = 0;
    glfwGetFramebufferSize(m_window, &width, &height);
    glViewport(0, 0, width, height);
    glClearColor(0.08f, 0.08f, 0.09f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    if (m_options.scripted()) {
      if (const std::optional<int> exit_code = scripted_frame(width, height)) return *exit_code;
    } else if (m_options.drag_seconds <= 0.f && m_options.play_seconds <= 0.f) {
      save_layout_if_changed();
    }
    glfwSwapBuffers(m_window);
    const double frame_end = glfwGetTime();
    if (m_options.drag_seconds > 0.f || m_options.play_seconds > 0.f) {
      // A timing run waits for the first fit, which a failed one never brings.
      if (const std::string error = fit_error(); !error.empty()) {
        const std::string path = excerpt(m_state.clip_path.string(), kPathExcerptChars);
        std::fprintf(stderr, "keystream-studio: %s: %s\n", path.c_str(), excerpt(error, kMessageExcerptChars).c_str());
        return 1;
      }
    }
    if (m_options.drag_seconds > 0.f && simulate_drag(frame_end, (frame_end - frame_start) * 1000.0)) return 0;
    if (m_options.play_seconds > 0.f && simulate_play(frame_end, (frame_end - frame_start) * 1000.0, viewport_ms)) {
      return 0;
    }
    frame_start = frame_end;
  }
  return 0;
}

}  // namespace ks::studio
