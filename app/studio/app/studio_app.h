#pragma once
// StudioApp: the window, the frame loop and everything that is not a panel:
// opening clips (command line, drag and drop, the Open panel), the File
// menu, handing settings to the refit worker, playback, the player whose
// work the Stats panel reports, keyboard shortcuts, the layout, the menu
// bar (studio_menu.cpp) and the scripted modes (studio_script.cpp).

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/studio/app/studio_state.h"
#include "app/studio/io/file_dialogs.h"
#include "app/studio/jobs/rd_sweep.h"
#include "app/studio/jobs/refit_worker.h"
#include "app/studio/panels/bone_tree_panel.h"
#include "app/studio/panels/curve_panel.h"
#include "app/studio/panels/open_panel.h"
#include "app/studio/panels/rd_panel.h"
#include "app/studio/panels/timeline_panel.h"
#include "app/studio/set/set_fitter.h"
#include "app/studio/set/set_panel.h"
#include "app/studio/viewport/viewport_panel.h"
#include "keystream/runtime/player.h"

struct GLFWwindow;

namespace ks::studio {

struct StudioOptions {
  std::filesystem::path clip;                  // default: the demo clip; a folder opens as a set
  std::vector<std::filesystem::path> set_files;  // several FILEs given: opened as one set (clip is the first)
  ImportSettings import;
  std::optional<std::filesystem::path> screenshot;  // render once the fit is done, save, exit
  std::optional<float> frame;                  // start at this frame
  std::string select;                          // bone name or index to select
  std::string select_curve;                    // scalar track name or index to show in the curves
  std::string bone_filter;                     // the Bones panel's filter text
  bool curve_euler = false;                    // the Curves panel shows rotations as Euler angles
  std::optional<FitSettings> fit;              // thresholds given on the command line
  std::optional<AdditiveBaseSpec> additive;    // the clip fitted as an additive layer to this base
  ViewportSettings viewport;
  std::filesystem::path shader_dir;            // the viewport's GLSL files
  float play_seconds = 0.f;                    // > 0: play the clip for this long, then print frame times
                                               // and the viewport's share of them, and exit
  float drag_seconds = 0.f;                    // > 0: move the rotation slider every frame for this long,
                                               // then print frame times and exit (responsiveness check)
  int width = 1600;
  int height = 1000;
  // File menu actions run once the first fit is done, through the dialogs
  // the menu opens (for tests); the studio then exits, or takes the
  // screenshot. Failures exit 1.
  std::optional<std::filesystem::path> save_stream;  // Save stream... to this path
  std::optional<std::filesystem::path> export_glb;   // Export decoded glTF... to this path
  bool print_command = false;                        // Copy as command, and print the command to stdout
  bool show_file_menu = false;                       // the screenshot shows the File menu open
  bool show_refitting = false;  // the screenshot is taken while a refit at half the tolerance runs
  bool show_rd = false;         // the Rate-distortion panel open (a screenshot waits for its sweep)
  std::optional<size_t> rd_click;  // with show_rd: click this point's table row once the sweep is done
  // The Open window, as clicks would drive it: shown, the cursor on this
  // file, this animation of it chosen, then (open_press) Open pressed. The
  // studio prints what is open afterwards.
  std::optional<std::filesystem::path> open_choose;
  int open_choose_animation = 0;
  bool open_press = false;
  bool open_escape = false;  // instead of Open: Escape pressed with the window focused
  bool show_set = false;     // the Set tab chosen (a file of several animations opens on the curves)
  // The Set panel's actions, run once every clip of the set is fitted.
  std::optional<std::filesystem::path> save_tolerances;  // Save: the tolerance file
  std::optional<std::filesystem::path> save_all;         // Save all into this folder (existing files: exit 1)
  bool print_set_command = false;                        // Copy as command, printed to stdout
  std::optional<float> refit_tolerance_mm;  // with --simulate-play: the clip (and a set) refit at this tolerance

  /// The studio runs a script: it does what the options say and exits.
  bool scripted() const {
    return screenshot || save_stream || export_glb || print_command || open_choose || save_tolerances || save_all ||
           print_set_command;
  }
  /// Nobody is at the window (a script or a timing run): a clip that fails
  /// to load or fit ends the run with exit 1, as no one could pick another.
  bool unattended() const { return scripted() || play_seconds > 0.f || drag_seconds > 0.f; }
};

class StudioApp {
 public:
  explicit StudioApp(StudioOptions options);
  ~StudioApp();
  StudioApp(const StudioApp&) = delete;
  StudioApp& operator=(const StudioApp&) = delete;

  /// Runs until the window closes (or, in screenshot mode, the PNG is
  /// written). Returns the process exit code.
  int run();

 private:
  bool init_window();
  Status open_clip(const std::filesystem::path& path, const ImportSettings& settings);
  // The set (studio_set.cpp): a folder, several files or a file of several
  // animations opens as one; its first (or chosen) clip in the panels.
  Status open_paths(const std::vector<std::filesystem::path>& paths, const ImportSettings& settings);
  bool set_holds(const std::filesystem::path& path) const;
  /// `show`: its tab is chosen (a folder or files opened as one set).
  void open_set(std::vector<std::filesystem::path> sources, bool show);
  void toggle_set_tab();
  void handle_set();
  bool set_busy() const;
  bool run_set_script();
  /// Fits the imported clip made additive to `spec` (kNone: as imported);
  /// on failure keeps the clip and says why in Settings.
  Status set_additive_base(const AdditiveBaseSpec& spec);
  void handle_requests();
  void handle_keys();
  void advance_time(float dt_seconds);
  void update_player();
  /// The open clip's fit failed (not abandoned for newer settings): its error, else empty.
  std::string fit_error() const;
  void draw_menu_bar();
  void draw_help();
  void remember_recent(const std::filesystem::path& path);
  /// The scripted File menu actions (StudioOptions); false when one failed.
  bool run_script();
  bool report_open() const;
  /// In scripted mode, once the fit is done: runs the script, then takes the
  /// screenshot. Returns the exit code when the studio should exit.
  std::optional<int> scripted_frame(int width, int height);
  bool simulate_drag(double now, double frame_ms);
  void report_overflowing_panels() const;
  void report_scalar_values() const;
  bool simulate_play(double now, double frame_ms, double viewport_ms);

  StudioOptions m_options;
  StudioState m_state;
  RefitWorker m_worker;
  GLFWwindow* m_window = nullptr;
  bool m_imgui_ready = false;
  bool m_show_open = false;
  bool m_show_help = false;
  OpenPanel m_open_panel;
  SaveDialog m_save;
  CommandWindow m_command;
  BoneTreePanel m_bone_tree;
  CurvePanel m_curves;
  TimelinePanel m_timeline;
  RdSweepWorker m_rd_worker;
  RdPanel m_rd_panel;
  SetFitter m_set;
  SetPanel m_set_panel;
  SetSnapshot m_set_view;               // the set as last read without waiting
  int m_select_tab = -1;                // the Curves window's tab to choose next frame: 0 curves, 1 the set
  bool m_set_settings_pending = false;  // the set was busy when the settings last changed
  std::unique_ptr<ViewportPanel> m_viewport;  // made once the GL context exists
  std::vector<std::filesystem::path> m_dropped;  // from the drop callback
  // The player over the current result's stream, re-made when the result changes.
  std::shared_ptr<const FitResult> m_player_result;
  std::unique_ptr<Player> m_player;
  std::vector<Transform> m_pose;
  std::vector<float> m_scalar_values;      // the player's scalar tracks (morph weights) at the pose's time
  std::vector<uint32_t> m_scalar_offsets;  // where each track starts among them
  // Scripted mode: frames drawn since the fit finished, whether the File
  // menu script ran and how, and where the File menu's label is (to click it).
  int m_settled_frames = 0;
  bool m_script_ran = false;
  int m_rd_click_phase = 0;  // --rd-click: 0 not yet, 1 pressed, 2 released, 3 done
  ImVec2 m_rd_click_at{};
  bool m_refit_shot_requested = false;  // --show-refitting: the refit is asked for; shoot while it runs
  bool m_script_ok = true;
  float m_file_menu_x = -1.f, m_file_menu_y = -1.f;
  // Responsiveness check (--simulate-drag).
  double m_drag_start = -1.0;
  std::vector<double> m_frame_ms;
  std::vector<uint64_t> m_generations_seen;
  // Playback check (--simulate-play).
  double m_play_start = -1.0;
  std::vector<double> m_viewport_ms;
  std::vector<double> m_keys_per_frame;
  // --refit-tolerance: when the refit began and ended, and the frame times while it ran.
  double m_refit_start = -1.0;
  double m_refit_end = -1.0;
  std::vector<double> m_refit_frame_ms;

  static void on_drop(GLFWwindow* window, int count, const char** paths);
};

}  // namespace ks::studio
