// StudioApp and the set (DESIGN §9): what opens as a set (a folder, several
// files, a file with several animations), the settings handed to the set's
// fitter, a row clicked open, and the set's scripted actions.

#include <cstdio>

#include "app/studio/app/studio_app.h"
#include "keystream/clip/excerpt.h"
#include "keystream/io/clip_files.h"
#include "keystream/io/import.h"

namespace ks::studio {

Status StudioApp::open_paths(const std::vector<std::filesystem::path>& paths, const ImportSettings& settings) {
  // Folders stand for the clip files in them.
  std::vector<std::filesystem::path> sources;
  bool any_folder = false;
  for (const std::filesystem::path& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      sources.push_back(path);
      continue;
    }
    Result<std::vector<std::filesystem::path>> files = clip_files_in_folder(path);
    if (!files) {
      m_state.load_error = files.error();
      return Error{files.error()};
    }
    any_folder = true;
    sources.insert(sources.end(), files.value().begin(), files.value().end());
  }
  ImportSettings first = settings;
  if (paths.size() == 1 && any_folder) {
    // A folder's first file was not named by the user: its first animation.
    first.animation_name.clear();
    first.animation_index = 0;
  }
  if (Status s = open_clip(sources.front(), first); !s) return s;
  if (paths.size() > 1 || any_folder) {
    open_set(std::move(sources), /*show=*/true);
    return {};
  }
  // A file of several animations is a set: its clips share the settings. A
  // file of one, from outside the open set, replaces the set as it replaces the clip.
  if (!set_holds(sources.front())) {
    if (m_state.clip->animation_names.size() > 1) {
      open_set(std::move(sources), /*show=*/false);
    } else if (!m_set.empty()) {
      m_set.close();
      m_set_view = {};
    }
  }
  return {};
}

bool StudioApp::set_holds(const std::filesystem::path& path) const {
  for (const std::filesystem::path& source : m_set.sources()) {
    if (source == path) return true;
  }
  return false;
}

void StudioApp::open_set(std::vector<std::filesystem::path> sources, bool show) {
  ImportSettings import = m_state.import_settings;
  import.read_textures = false;  // as keystream compress imports
  m_set.open(std::move(sources), import, m_state.settings);
  m_set_view = m_set.snapshot();
  m_set_settings_pending = false;
  m_set_panel.reset(m_set);
  if (show || m_options.show_set) m_select_tab = 1;
}

void StudioApp::toggle_set_tab() {
  if (!m_set.empty()) m_select_tab = m_curves.tab_shown() ? 0 : 1;
}

void StudioApp::handle_set() {
  if (m_set.empty()) return;
  // One set of settings: what the panels edit applies to every clip. The
  // window never waits for a worker: a busy set gets them next frame.
  m_set_settings_pending = !m_set.try_set_settings(m_state.settings);
  static_cast<void>(m_set.try_snapshot(m_set_view));
  if (std::optional<SetRow> row = m_set_panel.take_clicked()) {
    ImportSettings settings = m_state.import_settings;
    settings.animation_name.clear();
    settings.animation_index = row->animation;
    static_cast<void>(open_clip(row->source, settings));  // a failure is shown in the UI; the clip stays
  }
  if (m_set_panel.take_command_request()) m_command.show(m_set_panel.command(m_state, m_set));
}

bool StudioApp::set_busy() const {
  return !m_set.empty() && (m_set_settings_pending || m_set_view.progress.busy());
}

// --load-tolerances, --save-tolerances, --save-all and --print-set-command,
// through the Set panel as its buttons run them. False when one failed.
bool StudioApp::run_set_script() {
  bool ok = true;
  const auto report = [&](const Status& s, const char* what, const std::string& done) {
    if (!s) {
      std::fprintf(stderr, "keystream-studio: %s: %s\n", what, excerpt(s.error(), kMessageExcerptChars).c_str());
      ok = false;
    } else {
      std::printf("%s: %s\n", what, excerpt(done, kMessageExcerptChars).c_str());
    }
  };
  if (m_options.save_tolerances) {
    m_set_panel.set_tolerance_path(*m_options.save_tolerances);
    report(m_set_panel.save_tolerances(m_state), "save tolerances", m_options.save_tolerances->string());
  }
  if (m_options.save_all) {
    m_set_panel.set_output_folder(*m_options.save_all);
    Result<size_t> written = m_set_panel.save_all(m_set, /*replace=*/false);
    report(written ? Status{} : Status{Error{written.error()}}, "save all",
           written ? std::to_string(written.value()) + " files" : std::string());
  }
  if (m_options.print_set_command) {
    const CompressCommand command = m_set_panel.command(m_state, m_set);
    std::printf("%s\n", command.text.c_str());
    for (const std::string& caveat : command.caveats) {
      std::fprintf(stderr, "keystream-studio: the command: %s\n", excerpt(caveat, kMessageExcerptChars).c_str());
    }
  }
  std::fflush(stdout);
  return ok;
}

}  // namespace ks::studio
