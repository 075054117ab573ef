#pragma once
// The File menu's dialogs. SaveDialog writes the fitted stream (.ks) or the
// decoded animation as binary glTF (.glb): a path field prefilled beside the
// open clip, confirmation before replacing a file, and the outcome (bytes
// written, or the error) shown in the dialog. CommandWindow shows the
// `keystream compress` line that makes the same stream and puts it on the
// clipboard. The app's scripted options (--save-stream, --export-glb,
// --print-command) drive these same objects.

#include <filesystem>
#include <string>

#include "app/studio/app/studio_state.h"
#include "app/studio/settings/compress_command_line.h"
#include "keystream/runtime/result.h"

namespace ks::studio {

enum class SaveKind { kStream, kDecodedGlb };

class SaveDialog {
 public:
  /// Shows the dialog for `kind`, its path the last one saved to for this
  /// clip or else the default beside it (save_actions.h).
  void open(SaveKind kind, const StudioState& state);
  bool is_open() const { return m_open; }
  void set_path(const std::filesystem::path& path);
  /// Writes the file to the path in the field, without asking (the Save
  /// button asks first when the file exists). The outcome is also kept for
  /// the dialog to show.
  Status save(const StudioState& state);
  /// Draws the window while open.
  void draw(const StudioState& state);
  /// Where a stream of the open clip is saved: the last path it was saved
  /// to, or the default beside the clip.
  std::filesystem::path stream_path(const StudioState& state) const;
  const std::string& message() const { return m_message; }

 private:
  /// Why nothing can be saved now (no clip, a fit of the current settings
  /// not finished or failed); empty when it can.
  static std::string not_ready(const StudioState& state);
  /// Forgets the paths saved to when another clip is open.
  void follow_clip(const StudioState& state);

  bool m_open = false;
  bool m_just_opened = false;  // focus the path field on the next draw
  SaveKind m_kind = SaveKind::kStream;
  std::string m_path_text;
  bool m_confirming = false;  // the file exists: Replace or Cancel
  std::string m_message;      // the last save's outcome
  bool m_failed = false;
  std::filesystem::path m_clip_path;  // the clip the paths below were saved from
  std::filesystem::path m_saved_stream, m_saved_glb;
};

class CommandWindow {
 public:
  /// Makes the command for the open clip and the current settings, writing
  /// to `output`; puts it on the clipboard and shows it.
  void open(const StudioState& state, const std::filesystem::path& output);
  /// Shows `command` (a set's) the same way.
  void show(CompressCommand command);
  /// Draws the window while open: the command in a selectable text field,
  /// a Copy button, and anything that keeps it from reproducing the stream.
  void draw();
  const CompressCommand& command() const { return m_command; }

 private:
  bool m_open = false;
  CompressCommand m_command;
  std::string m_text;  // the field's buffer (read-only)
};

}  // namespace ks::studio
