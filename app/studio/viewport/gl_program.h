#pragma once
// GlProgram: a GLSL program built from a vertex and a fragment shader file in
// shaders/. It is rebuilt when either file changes on disk, so a shader can
// be edited while the studio runs; a build that fails keeps the last good
// program and keeps the compiler's log (naming the file) for the UI.

#include <filesystem>
#include <string>

namespace ks::studio {

class GlProgram {
 public:
  GlProgram(std::filesystem::path vertex_file, std::filesystem::path fragment_file);
  ~GlProgram();
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;

  /// Builds the program again when a file's modification time differs from
  /// the last attempt's (or nothing was attempted yet). Needs a current GL
  /// context. True when a new program replaced the old one.
  bool reload_if_changed();
  /// Builds the program again now, whatever the files' times.
  bool reload();

  /// The GL program name; 0 until a build has succeeded.
  unsigned id() const { return m_program; }
  /// Why the last build failed (empty when it succeeded).
  const std::string& error() const { return m_error; }
  /// The location of uniform `name` in the current program, or -1.
  int uniform(const char* name) const;

 private:
  std::filesystem::path m_vertex_file;
  std::filesystem::path m_fragment_file;
  std::filesystem::file_time_type m_vertex_time{};
  std::filesystem::file_time_type m_fragment_time{};
  bool m_attempted = false;
  unsigned m_program = 0;
  std::string m_error;
};

}  // namespace ks::studio
